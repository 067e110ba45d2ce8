import { existsSync, readFileSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { validate } from "../../contracts/registry.js";
import type { StackV1 } from "../../contracts/stack/v1.js";
import type { StackInput } from "../../kernel/compose/types.js";
import { deepMerge } from "../../kernel/compose/config.js";
import { KeelError } from "../../kernel/errors.js";
import { packageRoot } from "../../kernel/package-root.js";
import { isPluginLike, toPlugin } from "../../kernel/plugin/define-plugin.js";
import type { Plugin } from "../../kernel/plugin/types.js";
import { BUILTIN_PLUGINS } from "../../plugins/builtins.js";

export const BUILTIN_STACKS = ["lead", "subagent", "lead-approval", "subagent-approval"] as const;

export interface LoadedStack {
  /** The stack with `module` entries replaced by the loaded plugins. */
  stack: StackInput;
  /** Plugins stack entries may name: built-ins, then `--plugin` modules. */
  plugins: Plugin[];
  /** Where the stack came from (a built-in name or a file path). */
  source: string;
  /** Directory that relative `module` paths resolve against. */
  baseDir: string;
}

/** A STACK argument is a path when it contains `/` or ends in `.json`; otherwise a built-in name. */
export function isStackPath(ref: string): boolean {
  return ref.includes("/") || ref.endsWith(".json");
}

export function builtinStackPath(name: string): string {
  return join(packageRoot(), "plugins", "stacks", `${name}.json`);
}

/**
 * Read a stack@1 document by built-in name or path, validating it; an `extends` chain is
 * resolved (see `resolveExtends`), so the stack returned never has `extends`.
 */
export function readStack(ref: string, cwd = process.cwd()): { stack: StackV1; path: string } {
  const read = readStackFile(ref, cwd);
  return { stack: resolveExtends(read.stack, dirname(read.path), [read.path]), path: read.path };
}

function readStackFile(ref: string, cwd: string): { stack: StackV1; path: string } {
  const path = isStackPath(ref) ? resolve(cwd, ref) : builtinStackPath(ref);
  if (!existsSync(path)) {
    throw new KeelError(
      "KEEL_ERR_STACK_NOT_FOUND",
      isStackPath(ref) ? `stack file \`${ref}\` does not exist` : `\`${ref}\` is not a built-in stack (${BUILTIN_STACKS.join(", ")}) nor a stack file`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new KeelError("KEEL_ERR_STACK_INVALID", `stack \`${ref}\` is not valid JSON: ${(error as Error).message}`);
  }
  return { stack: assertStack(json, ref), path };
}

export function assertStack(json: unknown, label: string): StackV1 {
  const result = validate("stack@1", json);
  if (!result.valid) {
    const issue = result.errors[0]!;
    throw new KeelError("KEEL_ERR_STACK_INVALID", `stack \`${label}\` is invalid at \`${issue.pointer || "/"}\`: ${issue.message}`, { pointer: issue.pointer });
  }
  return json as StackV1;
}

type Entry = StackV1["plugins"][number];

/** The name a stack entry gives its plugin, or the absolute module path of a `module` entry. */
function entryKey(entry: Entry): string {
  if (typeof entry === "string") return `name:${entry}`;
  return "module" in entry ? `module:${entry.module}` : `name:${entry.name}`;
}

function entryConfigOf(entry: Entry): Record<string, unknown> | undefined {
  return typeof entry === "string" ? undefined : entry.config;
}

function withConfig(entry: Entry, config: Record<string, unknown> | undefined): Entry {
  if (config === undefined) return entry;
  if (typeof entry === "string") return { name: entry, config };
  return { ...entry, config };
}

/** Module paths and a stack-path `subagentStack` made absolute, so they still resolve from the extending file. */
function absolutize(stack: StackV1, dir: string): StackV1 {
  const plugins = stack.plugins.map((e) => (typeof e === "object" && "module" in e ? { ...e, module: resolve(dir, e.module) } : e));
  const sub = stack.subagentStack;
  return { ...stack, plugins, ...(typeof sub === "string" && isStackPath(sub) ? { subagentStack: resolve(dir, sub) } : {}) };
}

/**
 * Resolve `extends: "<built-in name or path>"` (a path is relative to the extending file's
 * directory): the base's plugins come first, then the extending stack's; an entry for a plugin
 * the base already lists keeps the base's position and its `config` is merged over the base's
 * (objects merge key by key, arrays and scalars replace: the extending stack wins). `order`
 * pairs are the base's then the extending stack's. `name`, `description` and `subagentStack`
 * are the extending stack's when it sets them, else the base's (`name` is always its own).
 * A chain that comes back to a stack it already read is `KEEL_ERR_STACK_EXTENDS_CYCLE`.
 */
export function resolveExtends(stack: StackV1, dir: string, chain: readonly string[] = []): StackV1 {
  if (stack.extends === undefined) return stack;
  const ref = stack.extends;
  const basePath = isStackPath(ref) ? resolve(dir, ref) : builtinStackPath(ref);
  if (chain.includes(basePath)) {
    const names = [...chain, basePath].map((p) => `\`${p}\``).join(" → ");
    throw new KeelError("KEEL_ERR_STACK_EXTENDS_CYCLE", `stack \`${stack.name}\` extends \`${ref}\`, which comes back to a stack already in the chain: ${names}; remove one \`extends\``, { pointer: "/extends" });
  }
  let read: { stack: StackV1; path: string };
  try {
    read = readStackFile(isStackPath(ref) ? basePath : ref, dir);
  } catch (error) {
    if (error instanceof KeelError) throw new KeelError(error.code, `stack \`${stack.name}\` extends \`${ref}\`: ${error.message}`, { pointer: "/extends", cause: error });
    throw error;
  }
  const base = absolutize(resolveExtends(read.stack, dirname(read.path), [...chain, read.path]), dirname(read.path));

  const plugins: Entry[] = [...base.plugins];
  const at = new Map(plugins.map((e, i) => [entryKey(e), i] as const));
  for (const entry of absolutize({ ...stack, extends: undefined }, dir).plugins) {
    const i = at.get(entryKey(entry));
    if (i === undefined) {
      at.set(entryKey(entry), plugins.length);
      plugins.push(entry);
      continue;
    }
    const [over, under] = [entryConfigOf(entry), entryConfigOf(plugins[i]!)];
    if (over !== undefined) plugins[i] = withConfig(plugins[i]!, (under === undefined ? over : deepMerge(under, over)) as Record<string, unknown>);
  }
  const order: Array<[string, string]> = [];
  for (const pair of [...(base.order ?? []), ...(stack.order ?? [])]) {
    if (!order.some(([a, b]) => a === pair[0] && b === pair[1])) order.push([pair[0], pair[1]]);
  }
  const { extends: _extends, ...own } = stack;
  const description = own.description ?? base.description;
  const subagentStack = own.subagentStack ?? base.subagentStack;
  return {
    ...own,
    plugins,
    ...(order.length > 0 ? { order } : {}),
    ...(description === undefined ? {} : { description }),
    ...(subagentStack === undefined ? {} : { subagentStack }),
  };
}

/** Import a plugin module (`.js`/`.mjs`) and return its default export as a Plugin. */
export async function loadPluginModule(file: string, cwd = process.cwd()): Promise<Plugin> {
  const path = isAbsolute(file) ? file : resolve(cwd, file);
  if (!existsSync(path)) throw new KeelError("KEEL_ERR_CLI_FILE", `plugin module \`${file}\` does not exist`);
  let mod: { default?: unknown };
  try {
    mod = (await import(pathToFileURL(path).href)) as { default?: unknown };
  } catch (error) {
    throw new KeelError("KEEL_ERR_PLUGIN_MODULE_INVALID", `plugin module \`${file}\` failed to load: ${(error as Error).message}`, { cause: error });
  }
  if (!isPluginLike(mod.default)) {
    throw new KeelError("KEEL_ERR_PLUGIN_MODULE_INVALID", `plugin module \`${file}\` has no default export of the form { manifest, hooks }`);
  }
  return toPlugin(mod.default);
}

/** Resolve a stack@1 object: `module` entries are imported relative to `baseDir`. */
export async function resolveStack(stack: StackV1, baseDir: string, extraPlugins: readonly Plugin[] = []): Promise<StackInput> {
  const entries: StackInput["plugins"] = [];
  for (const entry of stack.plugins) {
    if (typeof entry === "object" && "module" in entry) {
      const plugin = await loadPluginModule(entry.module, baseDir);
      entries.push(entry.config ? { plugin, config: entry.config } : plugin);
    } else {
      entries.push(entry);
    }
  }
  // `--plugin` modules join the stack after its own entries, in argument order.
  for (const plugin of extraPlugins) if (!entries.includes(plugin)) entries.push(plugin);
  return { ...stack, plugins: entries };
}

/**
 * Load a stack by built-in name or path, plus `--plugin` modules.
 *
 * @example
 * const { stack, plugins } = await loadStack("lead");
 * const composition = compose(stack, { plugins });
 */
export async function loadStack(
  ref: string | StackV1,
  options: { pluginFiles?: readonly string[]; plugins?: readonly Plugin[]; cwd?: string; baseDir?: string } = {},
): Promise<LoadedStack> {
  const cwd = options.cwd ?? process.cwd();
  const extra = [...(await Promise.all((options.pluginFiles ?? []).map((f) => loadPluginModule(f, cwd)))), ...(options.plugins ?? [])];
  let stack: StackV1;
  let baseDir: string;
  let source: string;
  if (typeof ref === "string") {
    const read = readStack(ref, cwd);
    stack = read.stack;
    baseDir = dirname(read.path);
    source = isStackPath(ref) ? read.path : ref;
  } else {
    baseDir = options.baseDir ?? cwd;
    stack = resolveExtends(assertStack(ref, ref.name ?? "inline"), baseDir);
    source = "inline";
  }
  return { stack: await resolveStack(stack, baseDir, extra), plugins: [...BUILTIN_PLUGINS, ...extra], source, baseDir };
}

/** Names of the plugins a stack lists (names, `{ name }`, plugin instances, `{ plugin }`). */
export function stackPluginNames(stack: StackInput): Set<string> {
  const names = new Set<string>();
  for (const entry of stack.plugins) {
    if (typeof entry === "string") names.add(entry);
    else if ("manifest" in entry) names.add(entry.manifest.name);
    else if ("plugin" in entry) names.add(entry.plugin.manifest.name);
    else if ("name" in entry) names.add(entry.name);
  }
  return names;
}
