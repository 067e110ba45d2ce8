import { compose } from "../../../kernel/compose/index.js";
import { fixLine } from "../../../kernel/compose/messages.js";
import type { StackV1 } from "../../../contracts/stack/v1.js";
import type { StackInput } from "../../../kernel/compose/types.js";
import { CompositionError, KeelError, type CompositionProblem } from "../../../kernel/errors.js";
import { auditManifest, manifestAccepted, type ManifestProblem } from "../../../kernel/plugin/validate-manifest.js";
import type { Plugin } from "../../../kernel/plugin/types.js";
import { BUILTIN_PLUGINS } from "../../../plugins/builtins.js";
import { loadPluginModule, loadStack } from "../../stacks/load-stack.js";
import { parseSpecArgs, subcommandError, wantsJson } from "../args.js";
import { helpRequested, renderHelp } from "../command-spec.js";
import { EXIT_FAILED, EXIT_OK, failUsage, printJson, type CommandIO } from "../io.js";
import { PLUGIN_CHECK_SPEC } from "../specs.js";

const USAGE = PLUGIN_CHECK_SPEC.usage;

export interface PluginCheckResult {
  /** True when no entry of `manifestProblems` (warnings aside) nor of `problems` is left. */
  ok: boolean;
  /** The manifest audit; an entry with `severity: "warning"` (e.g. no `config` schema) does not make `ok` false. */
  manifestProblems: ManifestProblem[];
  problems: CompositionProblem[];
}

/** `keel plugin check MODULE [--stack STACK]`: audit a plugin module's manifest and compose it into a stack. */
export async function pluginCommand(args: string[], io: CommandIO): Promise<number> {
  // `keel plugin --help` and `keel plugin check --help`: check is the only subcommand.
  if (helpRequested(args)) return (io.out(renderHelp(PLUGIN_CHECK_SPEC)), EXIT_OK);
  const json = wantsJson(args);
  let result: PluginCheckResult;
  let label: string;
  let stackRef: string;
  try {
    const { values, positionals } = parseSpecArgs(args, PLUGIN_CHECK_SPEC);
    const [subcommand, module, ...extra] = positionals;
    if (subcommand !== "check") throw subcommandError("plugin", subcommand, ["check"], USAGE);
    if (module === undefined || extra.length > 0) {
      throw new KeelError("KEEL_ERR_CLI_USAGE", `expected exactly one MODULE, got ${positionals.length - 1}; ${USAGE}`);
    }
    stackRef = values.stack ?? "lead";
    const plugin = await loadPluginModule(module, io.cwd);
    label = typeof plugin.manifest?.name === "string" ? `\`${plugin.manifest.name}\`` : `\`${module}\``;
    result = await checkPlugin(plugin, stackRef, io.cwd);
  } catch (error) {
    return failUsage(io, json, error);
  }
  if (json) printJson(io, result);
  else io.out(renderCheck(label, stackRef, result));
  return result.ok ? EXIT_OK : EXIT_FAILED;
}

/**
 * The manifest audit (the same as PluginTester's: `auditManifest`), then the composition of
 * `stackRef` plus the plugin. Composition problems that repeat a manifest problem are left
 * out of `problems`. A plugin named like a built-in is reported as a duplicate, and the stack
 * is composed with it in the built-in's place (never the built-in checked instead of it).
 */
export async function checkPlugin(plugin: Plugin, stackRef: string | StackV1, cwd: string): Promise<PluginCheckResult> {
  const manifestProblems = auditManifest(plugin);
  const loaded = await loadStack(stackRef, { plugins: [plugin], cwd });
  const builtin = shadowedBuiltin(plugin);
  const stack = builtin === undefined ? withoutSecondCopy(loaded.stack) : inPlaceOf(loaded.stack, plugin);
  let problems: CompositionProblem[] = [];
  if (builtin !== undefined) problems.push(duplicateOfBuiltin(builtin));
  try {
    compose(stack, { plugins: loaded.plugins });
  } catch (error) {
    if (!(error instanceof CompositionError)) throw error;
    const repeated = new Set(manifestProblems.flatMap((p) => [p.message, `${p.message}; ${p.fix}`]));
    problems = [...problems, ...error.problems.filter((p) => !repeated.has(p.message)).map((p) => ({ ...p }))];
  }
  return { ok: manifestAccepted(manifestProblems) && problems.length === 0, manifestProblems, problems };
}

/** The built-in the plugin would shadow: same name, another plugin (not the built-in's own module). */
function shadowedBuiltin(plugin: Plugin): string | undefined {
  const name = plugin.manifest?.name;
  const same = BUILTIN_PLUGINS.find((b) => b.manifest.name === name);
  return same === undefined || same.manifest === plugin.manifest ? undefined : same.manifest.name;
}

function duplicateOfBuiltin(name: string): CompositionProblem {
  return {
    code: "KEEL_ERR_COMPOSE_DUPLICATE",
    message: `the module is named \`${name}\`, like a built-in plugin: a stack naming \`${name}\` gets the built-in, and a stack with both lists \`${name}\` twice; rename the plugin (e.g. \`my-${name}\`)`,
    plugins: [name],
    pointer: "/name",
    fix: `rename the plugin in its manifest (e.g. \`my-${name}\`)`,
  };
}

/** The stack with the checked plugin in the place of the entry of the same name (or added last, as given). */
function inPlaceOf(stack: StackInput, plugin: Plugin): StackInput {
  const name = plugin.manifest.name;
  const others = stack.plugins.slice(0, -1);
  const at = others.findIndex((entry) => entryName(entry) === name);
  if (at === -1) return stack;
  const replaced = others.map((entry, i) => (i === at ? (typeof entry === "object" && "config" in entry && entry.config !== undefined ? { plugin, config: entry.config } : plugin) : entry));
  return { ...stack, plugins: replaced };
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
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
  const lines: string[] = [];
  const listProblems = (problems: ReadonlyArray<{ code: string; message: string; fix?: string; severity?: string }>) => {
    for (const p of problems) {
      lines.push(`  ${p.severity === "warning" ? "warning " : ""}${p.code}: ${p.message}`);
      const fix = fixLine(p.message, p.fix);
      if (fix !== undefined) lines.push(`    fix: ${fix}`);
    }
  };
  const warnings = result.manifestProblems.filter((p) => p.severity === "warning").length;
  const errors = result.manifestProblems.length - warnings;
  const manifestOk = errors === 0;
  const summary = manifestOk ? (warnings === 0 ? "ok" : `ok (${plural(warnings, "warning")})`) : `${plural(errors, "problem")}${warnings === 0 ? "" : `, ${plural(warnings, "warning")}`}`;
  lines.push(`manifest of ${label}: ${summary}`);
  listProblems(result.manifestProblems);
  if (result.problems.length > 0) {
    lines.push(`${label} in stack \`${stackRef}\`: does not compose (${plural(result.problems.length, "problem")})`);
    listProblems(result.problems);
  } else {
    lines.push(`${label} in stack \`${stackRef}\`: ${manifestOk ? "composes" : "no problems beyond the manifest's"}`);
  }
  lines.push(result.ok ? "ok" : "not ok");
  return lines.join("\n");
}
