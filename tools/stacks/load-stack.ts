import { existsSync, readFileSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { validate } from "../../contracts/registry.js";
import type { StackV1 } from "../../contracts/stack/v1.js";
import type { StackInput } from "../../kernel/compose/types.js";
import { KeelError } from "../../kernel/errors.js";
import { packageRoot } from "../../kernel/package-root.js";
import { isPluginLike, toPlugin } from "../../kernel/plugin/define-plugin.js";
import type { Plugin } from "../../kernel/plugin/types.js";
import { BUILTIN_PLUGINS } from "../../plugins/builtins.js";

export const BUILTIN_STACKS = ["lead", "subagent"] as const;

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

/** Read a stack@1 document by built-in name or path, validating it. */
export function readStack(ref: string, cwd = process.cwd()): { stack: StackV1; path: string } {
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
    stack = assertStack(ref, ref.name ?? "inline");
    baseDir = options.baseDir ?? cwd;
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
