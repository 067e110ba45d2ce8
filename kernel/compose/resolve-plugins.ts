import { StackV1 } from "../../contracts/stack/v1.js";
import type { CompositionProblem } from "../errors.js";
import { isPluginLike, toPlugin } from "../plugin/define-plugin.js";
import type { Plugin } from "../plugin/types.js";
import { tick } from "./messages.js";
import type { ComposeOptions, StackInput } from "./types.js";

/** The keys a stack@1 may have. */
const STACK_KEYS: ReadonlySet<string> = new Set(Object.keys(StackV1.properties));

/** A stack entry resolved to a plugin, before any check. */
export interface Candidate {
  /** Position in the stack's `plugins` list: listing order breaks ties in the composed order. */
  readonly index: number;
  readonly plugin: Plugin;
  /** The manifest's name when it has a string one. */
  readonly name: string | undefined;
  /** Config written on the stack entry (`{ name, config }` / `{ plugin, config }`). */
  readonly entryConfig: unknown;
}

function toRegistry(plugins: ComposeOptions["plugins"]): Map<string, Plugin> {
  const registry = new Map<string, Plugin>();
  if (plugins === undefined) return registry;
  if (Array.isArray(plugins)) {
    for (const plugin of plugins as readonly Plugin[]) {
      const name = (plugin?.manifest as { name?: unknown } | undefined)?.name;
      // First wins: options list built-ins before `--plugin` modules.
      if (typeof name === "string" && !registry.has(name)) registry.set(name, plugin);
    }
  } else {
    for (const [name, plugin] of Object.entries(plugins as Readonly<Record<string, Plugin>>)) registry.set(name, plugin);
  }
  return registry;
}

/** A plain `{ manifest }` object (e.g. a module default export without hooks) becomes a Plugin. */
function asPlugin(value: unknown): Plugin {
  const hooks = (value as { hooks?: unknown }).hooks;
  return typeof hooks === "object" && hooks !== null ? (value as Plugin) : toPlugin(value as Parameters<typeof toPlugin>[0]);
}

function manifestName(plugin: Plugin): string | undefined {
  const name = (plugin.manifest as { name?: unknown } | undefined)?.name;
  return typeof name === "string" ? name : undefined;
}

/**
 * Turn each stack entry into a plugin: a name (looked up in `options.plugins`), `{ name, config }`,
 * a plugin instance or `{ plugin, config }`. `{ module }` entries are loaded by `loadStack`, never here.
 */
export function resolveStackEntries(stack: StackInput, options: ComposeOptions, problems: CompositionProblem[]): Candidate[] {
  const registry = toRegistry(options.plugins);
  const stackName = typeof stack?.name === "string" ? stack.name : "(unnamed)";
  if (!Array.isArray(stack?.plugins)) {
    problems.push({
      code: "KEEL_ERR_STACK_INVALID",
      message: `stack ${tick(stackName)} has no \`plugins\` list; a stack@1 needs \`plugins: [...]\``,
      plugins: [],
      pointer: "/plugins",
      fix: "add a `plugins` array to the stack",
    });
    return [];
  }

  // Payload schemas are closed: a misspelt key (`ordr`) is a problem, not silently ignored.
  for (const key of Object.keys(stack)) {
    if (STACK_KEYS.has(key)) continue;
    problems.push({
      code: "KEEL_ERR_STACK_INVALID",
      message: `stack ${tick(stackName)} has an unknown key ${tick(key)}; a stack@1 has ${[...STACK_KEYS].map(tick).join(", ")}`,
      plugins: [],
      pointer: `/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`,
      fix: `remove ${tick(key)} or correct its spelling`,
    });
  }

  if (typeof (stack as { extends?: unknown }).extends === "string") {
    problems.push({
      code: "KEEL_ERR_STACK_INVALID",
      message: `stack ${tick(stackName)} still \`extends\` ${tick((stack as { extends: string }).extends)}; compose takes a resolved stack: read it with \`loadStack\` (or \`keel compose\`), which merges the base stack in`,
      plugins: [],
      pointer: "/extends",
      fix: "load the stack with `loadStack` before calling `compose`",
    });
  }

  const candidates: Candidate[] = [];
  stack.plugins.forEach((entry: unknown, index) => {
    const pointer = `/plugins/${index}`;
    const lookup = (name: string, entryConfig: unknown): void => {
      const plugin = registry.get(name);
      if (plugin === undefined) {
        problems.push({
          code: "KEEL_ERR_COMPOSE_UNKNOWN_PLUGIN",
          message: `stack ${tick(stackName)} names plugin ${tick(name)} at \`${pointer}\`, which is neither built in nor loaded; check the spelling, load it with \`--plugin FILE\`, or use \`{ "module": "./path.js" }\``,
          plugins: [name],
          pointer,
          fix: `check the spelling of ${tick(name)} or load its module`,
        });
        return;
      }
      const resolved = asPlugin(plugin);
      candidates.push({ index, plugin: resolved, name: manifestName(resolved), entryConfig });
    };

    if (typeof entry === "string") return lookup(entry, undefined);
    if (typeof entry === "object" && entry !== null) {
      const record = entry as Record<string, unknown>;
      if (isPluginLike(entry)) {
        const plugin = asPlugin(entry);
        candidates.push({ index, plugin, name: manifestName(plugin), entryConfig: undefined });
        return;
      }
      if (isPluginLike(record.plugin)) {
        const plugin = asPlugin(record.plugin);
        candidates.push({ index, plugin, name: manifestName(plugin), entryConfig: record.config });
        return;
      }
      if (typeof record.module === "string") {
        problems.push({
          code: "KEEL_ERR_COMPOSE_UNKNOWN_PLUGIN",
          message: `stack ${tick(stackName)} has an unloaded module entry ${tick(record.module)} at \`${pointer}\`; compose takes loaded plugins only: read the stack with \`loadStack\` (or \`keel compose\`), which loads \`module\` entries`,
          plugins: [],
          pointer,
          fix: "load the stack with `loadStack` before calling `compose`",
        });
        return;
      }
      if (typeof record.name === "string") return lookup(record.name, record.config);
    }
    problems.push({
      code: "KEEL_ERR_STACK_INVALID",
      message: `stack ${tick(stackName)} has an invalid entry at \`${pointer}\`: expected a plugin name, \`{ name, config? }\`, \`{ module, config? }\` or a plugin`,
      plugins: [],
      pointer,
      fix: "write the entry as a plugin name or `{ name, config }`",
    });
  });
  return candidates;
}
