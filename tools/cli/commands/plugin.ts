import { compose } from "../../../kernel/compose/index.js";
import type { StackInput } from "../../../kernel/compose/types.js";
import { CompositionError, KeelError, type CompositionProblem } from "../../../kernel/errors.js";
import type { ManifestProblem } from "../../../kernel/plugin/validate-manifest.js";
import type { Plugin } from "../../../kernel/plugin/types.js";
import { PluginTester } from "../../testing/plugin-tester.js";
import { loadPluginModule, loadStack } from "../../stacks/load-stack.js";
import { parseCommandArgs, wantsJson } from "../args.js";
import { EXIT_FAILED, EXIT_OK, failUsage, printJson, type CommandIO } from "../io.js";

const USAGE = "usage: keel plugin check MODULE [--stack STACK] [--json]";

export interface PluginCheckResult {
  ok: boolean;
  manifestProblems: ManifestProblem[];
  problems: CompositionProblem[];
}

/** `keel plugin check MODULE [--stack STACK]`: audit a plugin module's manifest and compose it into a stack. */
export async function pluginCommand(args: string[], io: CommandIO): Promise<number> {
  const json = wantsJson(args);
  let result: PluginCheckResult;
  let label: string;
  let stackRef: string;
  try {
    const { values, positionals } = parseCommandArgs(args, { stack: { type: "string" }, json: { type: "boolean" } }, USAGE);
    const [subcommand, module, ...extra] = positionals;
    if (subcommand !== "check") {
      throw new KeelError("KEEL_ERR_CLI_USAGE", subcommand === undefined ? `missing subcommand; ${USAGE}` : `unknown subcommand \`${subcommand}\`; ${USAGE}`);
    }
    if (module === undefined || extra.length > 0) {
      throw new KeelError("KEEL_ERR_CLI_USAGE", `expected exactly one MODULE, got ${positionals.length - 1}; ${USAGE}`);
    }
    stackRef = values.stack ?? "lead";
    const plugin = await loadPluginModule(module, io.cwd);
    label = typeof plugin.manifest?.name === "string" ? `\`${plugin.manifest.name}\`` : `\`${module}\``;
    result = await checkPlugin(plugin, module, stackRef, io.cwd);
  } catch (error) {
    return failUsage(io, json, error);
  }
  if (json) printJson(io, result);
  else io.out(renderCheck(label, stackRef, result));
  return result.ok ? EXIT_OK : EXIT_FAILED;
}

/**
 * The manifest audit (PluginTester's: manifest@1, kernel range, config schema present and
 * compiling, hooks declared = implemented), then the composition of `stackRef` plus the
 * module. Composition problems that repeat a manifest problem are left out of `problems`.
 */
export async function checkPlugin(plugin: Plugin, module: string, stackRef: string, cwd: string): Promise<PluginCheckResult> {
  const manifestProblems = new PluginTester().audit(plugin);
  const loaded = await loadStack(stackRef, { pluginFiles: [module], cwd });
  const stack = withoutSecondCopy(loaded.stack);
  let problems: CompositionProblem[] = [];
  try {
    compose(stack, { plugins: loaded.plugins });
  } catch (error) {
    if (!(error instanceof CompositionError)) throw error;
    const repeated = new Set(manifestProblems.flatMap((p) => [p.message, `${p.message}; ${p.fix}`]));
    problems = error.problems.filter((p) => !repeated.has(p.message)).map((p) => ({ ...p }));
  }
  return { ok: manifestProblems.length === 0 && problems.length === 0, manifestProblems, problems };
}

function entryName(entry: StackInput["plugins"][number]): string | undefined {
  if (typeof entry === "string") return entry;
  if ("manifest" in entry) return entry.manifest?.name;
  if ("plugin" in entry) return entry.plugin.manifest?.name;
  if ("name" in entry) return entry.name;
  return undefined;
}

/** The checked module joins the stack last; when the stack already lists that plugin, it is not added twice. */
function withoutSecondCopy(stack: StackInput): StackInput {
  const added = stack.plugins.at(-1);
  if (added === undefined) return stack;
  const name = entryName(added);
  const listed = stack.plugins.slice(0, -1).some((entry) => name !== undefined && entryName(entry) === name);
  return listed ? { ...stack, plugins: stack.plugins.slice(0, -1) } : stack;
}

function renderCheck(label: string, stackRef: string, result: PluginCheckResult): string {
  const count = (n: number) => `${n} problem${n === 1 ? "" : "s"}`;
  const lines: string[] = [];
  const listProblems = (problems: ReadonlyArray<{ code: string; message: string; fix?: string }>) => {
    for (const p of problems) {
      lines.push(`  ${p.code}: ${p.message}`);
      if (p.fix && !p.message.includes(p.fix)) lines.push(`    fix: ${p.fix}`);
    }
  };
  const manifestOk = result.manifestProblems.length === 0;
  lines.push(`manifest of ${label}: ${manifestOk ? "ok" : count(result.manifestProblems.length)}`);
  listProblems(result.manifestProblems);
  if (result.problems.length > 0) {
    lines.push(`${label} in stack \`${stackRef}\`: does not compose (${count(result.problems.length)})`);
    listProblems(result.problems);
  } else {
    lines.push(`${label} in stack \`${stackRef}\`: ${manifestOk ? "composes" : "no problems beyond the manifest's"}`);
  }
  lines.push(result.ok ? "ok" : "not ok");
  return lines.join("\n");
}
