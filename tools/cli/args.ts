import { parseArgs, type ParseArgsConfig } from "node:util";
import { KeelError } from "../../kernel/errors.js";

type Options = NonNullable<ParseArgsConfig["options"]>;
type Parsed<T extends Options> = ReturnType<typeof parseArgs<{ options: T; allowPositionals: true; strict: true }>>;

/** `node:util` parseArgs with its errors turned into `KEEL_ERR_CLI_USAGE` (exit 2) naming the usage line. */
export function parseCommandArgs<T extends Options>(args: string[], options: T, usage: string): Parsed<T> {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true }) as Parsed<T>;
  } catch (error) {
    throw new KeelError("KEEL_ERR_CLI_USAGE", `${(error as Error).message}; ${usage}`);
  }
}

/** Whether `--json` was asked for, read before full parsing so even a usage error answers in JSON. */
export function wantsJson(args: readonly string[]): boolean {
  return args.includes("--json");
}

/** `<command> build [--check]`: the shape shared by `keel schemas` and `keel docs`. */
export function parseBuildArgs(args: string[], usage: string): { check: boolean } {
  const { values, positionals } = parseCommandArgs(args, { check: { type: "boolean", default: false } }, usage);
  if (positionals.length !== 1 || positionals[0] !== "build") {
    throw new KeelError("KEEL_ERR_CLI_USAGE", positionals.length === 0 ? `missing subcommand; ${usage}` : `unknown subcommand \`${positionals.join(" ")}\`; ${usage}`);
  }
  return { check: values.check === true };
}
