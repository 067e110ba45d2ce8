import { readFileSync } from "node:fs";
import { KeelError, isKeelError } from "../../kernel/errors.js";

/** Exit codes: 0 success, 1 the check ran and failed, 2 bad usage or bad input. */
export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

export interface CommandIO {
  out(text: string): void;
  err(text: string): void;
  cwd: string;
}

export const processIO: CommandIO = {
  out: (text) => process.stdout.write(text.endsWith("\n") ? text : text + "\n"),
  err: (text) => process.stderr.write(text.endsWith("\n") ? text : text + "\n"),
  cwd: process.cwd(),
};

/** Print a JSON document as the only stdout output. */
export function printJson(io: CommandIO, value: unknown): void {
  io.out(JSON.stringify(value, null, 2));
}

/**
 * Report bad usage / bad input: one clear line on stderr, and with `--json` the document
 * `{ ok: false, error: { code, message } }` on stdout. Returns exit code 2.
 */
export function failUsage(io: CommandIO, json: boolean, error: unknown): number {
  const keel = isKeelError(error) ? error : new KeelError("KEEL_ERR_CLI_USAGE", (error as Error)?.message ?? String(error));
  const message = keel.pointer !== undefined && !keel.message.includes(keel.pointer) ? `${keel.message} (at ${keel.pointer})` : keel.message;
  io.err(`${keel.code}: ${message}`);
  if (json) printJson(io, { ok: false, error: { code: keel.code, message } });
  return EXIT_USAGE;
}

/** Read and parse a JSON file, with coded errors for a missing file or bad JSON. */
export function readJsonFile(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new KeelError("KEEL_ERR_CLI_FILE", `cannot read \`${path}\`: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new KeelError("KEEL_ERR_CLI_JSON", `\`${path}\` is not valid JSON: ${(error as Error).message}`);
  }
}
