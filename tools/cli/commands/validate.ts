import { isAbsolute, resolve } from "node:path";
import type { ValidationResult } from "../../../contracts/ajv.js";
import { getContract, validate } from "../../../contracts/registry.js";
import { KeelError } from "../../../kernel/errors.js";
import { parseSpecArgs, wantsJson } from "../args.js";
import { helpRequested, renderHelp } from "../command-spec.js";
import { EXIT_FAILED, EXIT_OK, failUsage, printJson, readJsonFile, type CommandIO } from "../io.js";
import { VALIDATE_SPEC } from "../specs.js";

const USAGE = VALIDATE_SPEC.usage;

/**
 * `keel validate CONTRACT@VERSION FILE`: validate a payload as written — strict, not as a
 * tolerant reader, since a writer checking its output wants every unknown property named.
 */
export async function validateCommand(args: string[], io: CommandIO): Promise<number> {
  if (helpRequested(args)) return (io.out(renderHelp(VALIDATE_SPEC)), EXIT_OK);
  const json = wantsJson(args);
  let result: ValidationResult;
  try {
    const { positionals } = parseSpecArgs(args, VALIDATE_SPEC);
    if (positionals.length !== 2) {
      throw new KeelError("KEEL_ERR_CLI_USAGE", `expected CONTRACT@VERSION and FILE, got ${positionals.length} argument${positionals.length === 1 ? "" : "s"}; ${USAGE}`);
    }
    const [ref, file] = positionals as [string, string];
    const contract = getContract(ref);
    const payload = readJsonFile(isAbsolute(file) ? file : resolve(io.cwd, file));
    result = validate(contract, payload);
  } catch (error) {
    return failUsage(io, json, error);
  }
  if (json) {
    printJson(io, { valid: result.valid, errors: result.errors.map((e) => ({ pointer: e.pointer, message: e.message })) });
  } else {
    io.out(result.valid ? "valid" : result.errors.map((e) => `${e.pointer || "/"}: ${e.message}`).join("\n"));
  }
  return result.valid ? EXIT_OK : EXIT_FAILED;
}
