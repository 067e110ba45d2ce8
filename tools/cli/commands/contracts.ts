import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { COMPATIBILITY_MODES, isCompatible, type CompatibilityMode } from "../../../contracts/compat/codes.js";
import { diffSchemas } from "../../../contracts/compat/diff.js";
import { KeelError } from "../../../kernel/errors.js";
import { checkContracts } from "../../contracts/check.js";
import { parseSpecArgs, subcommandError, wantsJson } from "../args.js";
import { helpRequested, renderHelp } from "../command-spec.js";
import { EXIT_FAILED, EXIT_OK, failUsage, printJson, readJsonFile, type CommandIO } from "../io.js";
import { CONTRACTS_CHECK_SPEC, CONTRACTS_DIFF_SPEC } from "../specs.js";

const DIFF_USAGE = CONTRACTS_DIFF_SPEC.usage;
const CHECK_USAGE = CONTRACTS_CHECK_SPEC.usage;
const USAGE = `usage: keel contracts diff|check …\n  ${DIFF_USAGE.slice(7)}\n  ${CHECK_USAGE.slice(7)}`;

function modeOf(value: string | undefined, usage: string): CompatibilityMode {
  const mode = value ?? "backward";
  if (!(COMPATIBILITY_MODES as readonly string[]).includes(mode)) {
    throw new KeelError("KEEL_ERR_CLI_USAGE", `unknown mode \`${mode}\`; expected backward, forward or full; ${usage}`);
  }
  return mode as CompatibilityMode;
}

/** `keel contracts diff|check`: schema compatibility (docs/contracts-compat.md). */
export async function contractsCommand(args: string[], io: CommandIO): Promise<number> {
  const json = wantsJson(args);
  const [sub, ...rest] = args;
  try {
    if (sub === "diff") return helpRequested(rest) ? (io.out(renderHelp(CONTRACTS_DIFF_SPEC)), EXIT_OK) : diffCommand(rest, io, json);
    if (sub === "check") return helpRequested(rest) ? (io.out(renderHelp(CONTRACTS_CHECK_SPEC)), EXIT_OK) : await checkCommand(rest, io, json);
    if (helpRequested(args)) return (io.out([renderHelp(CONTRACTS_DIFF_SPEC), renderHelp(CONTRACTS_CHECK_SPEC)].join("\n\n")), EXIT_OK);
    throw subcommandError("contracts", sub, ["diff", "check"], USAGE);
  } catch (error) {
    return failUsage(io, json, error);
  }
}

function diffCommand(args: string[], io: CommandIO, json: boolean): number {
  const { values, positionals } = parseSpecArgs(args, CONTRACTS_DIFF_SPEC);
  if (positionals.length !== 2) throw new KeelError("KEEL_ERR_CLI_USAGE", `expected two schema files, got ${positionals.length}; ${DIFF_USAGE}`);
  const mode = modeOf(values.mode, DIFF_USAGE);
  const [old, next] = positionals.map((p) => readJsonFile(resolve(io.cwd, p)));
  const diff = diffSchemas(old, next);
  const compatible = isCompatible(diff, mode);
  if (json) {
    printJson(io, { changes: diff.changes, backward: diff.backward, forward: diff.forward, full: diff.full, compatible });
  } else {
    const keeps = (ok: boolean) => (ok ? "keeps" : "BREAKS");
    const lines = diff.changes.map((c) => `${c.code} ${c.path} (backward ${keeps(c.backward)}, forward ${keeps(c.forward)}): ${c.message}`);
    const verdict = (ok: boolean) => (ok ? "compatible" : "incompatible");
    lines.push(`backward: ${verdict(diff.backward)}`, `forward: ${verdict(diff.forward)}`, `full: ${verdict(diff.full)}`);
    io.out(lines.join("\n"));
  }
  return compatible ? EXIT_OK : EXIT_FAILED;
}

async function loadMigrations(path: string, cwd: string): Promise<{ contract: string; from: number; to: number }[]> {
  let mod: Record<string, unknown>;
  try {
    mod = (await import(pathToFileURL(resolve(cwd, path)).href)) as Record<string, unknown>;
  } catch (error) {
    throw new KeelError("KEEL_ERR_CLI_FILE", `cannot load migrations module \`${path}\`: ${(error as Error).message}`);
  }
  const list = mod.MIGRATIONS ?? mod.default;
  if (!Array.isArray(list)) throw new KeelError("KEEL_ERR_CLI_USAGE", `\`${path}\` exports no \`MIGRATIONS\` array (or default export)`);
  return list as { contract: string; from: number; to: number }[];
}

async function checkCommand(args: string[], io: CommandIO, json: boolean): Promise<number> {
  const { values, positionals } = parseSpecArgs(args, CONTRACTS_CHECK_SPEC);
  if (positionals.length > 0) throw new KeelError("KEEL_ERR_CLI_USAGE", `unexpected argument \`${positionals[0]}\`; ${CHECK_USAGE}`);
  if (!values.base) throw new KeelError("KEEL_ERR_CLI_USAGE", `missing --base; ${CHECK_USAGE}`);
  const mode = modeOf(values.mode, CHECK_USAGE);
  const migrations = values.migrations ? await loadMigrations(values.migrations, io.cwd) : undefined;
  const result = checkContracts({ cwd: io.cwd, base: values.base, mode, ...(migrations ? { migrations } : {}) });
  if (json) {
    printJson(io, { ok: result.ok, violations: result.violations });
  } else if (result.ok) {
    io.out(`schemas/ is ${mode}-compatible with \`${values.base}\` (${result.compared.length} schema file${result.compared.length === 1 ? "" : "s"} compared)`);
  } else {
    io.out(result.violations.map((v) => `${v.file} ${v.pointer} ${v.code}: ${v.message}`).join("\n"));
    io.err(
      `KEEL_ERR_CONTRACTS_INCOMPATIBLE: ${result.violations.length} violation${result.violations.length === 1 ? "" : "s"} against \`${values.base}\` (mode ${mode}); make the change compatible, or publish a new major version with a migration (docs/contracts-compat.md)`,
    );
  }
  return result.ok ? EXIT_OK : EXIT_FAILED;
}
