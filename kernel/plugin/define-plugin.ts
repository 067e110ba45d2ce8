import { fixLine } from "../compose/messages.js";
import { KeelError } from "../errors.js";
import { toKeelTool, type ToolLike } from "../interop/langchain-tools.js";
import { validateManifest } from "./validate-manifest.js";
import type { Hooks, Manifest, Plugin, PortFactory, ReportHook } from "./types.js";

export interface PluginDefinition {
  manifest: Manifest;
  hooks?: Hooks;
  /** Keel tools, or LangChain tools as they are (`tool()`, `StructuredTool`, MCP tools): converted once, here. */
  tools?: readonly ToolLike[];
  services?: Readonly<Record<string, PortFactory>>;
  report?: ReportHook;
}

/**
 * Declare a plugin. The manifest is validated (manifest@1, hooks declared = implemented)
 * and the result is frozen.
 *
 * @example
 * export default definePlugin({
 *   manifest: { name: "audit", version: "1.0.0", kind: "middleware", kernel: ">=0.1.0",
 *     description: "Counts model calls", hooks: { afterModel: { observes: ["messages"] } } },
 *   hooks: { afterModel: (state) => { count++; } },
 * });
 */
export function definePlugin(definition: PluginDefinition): Plugin {
  const plugin = toPlugin(definition);
  const problems = validateManifest(plugin);
  if (problems.length > 0) {
    const first = problems[0]!;
    const lines = problems.map((p) => {
      const fix = fixLine(p.message, p.fix);
      return fix === undefined ? p.message : `${p.message} (fix: ${fix})`;
    });
    throw new KeelError(first.code, lines.join("; "), first.pointer === undefined ? {} : { pointer: first.pointer });
  }
  return plugin;
}

/** Normalize a plain `{ manifest, hooks, tools? }` (e.g. a module's default export) into a frozen Plugin. */
export function toPlugin(definition: PluginDefinition): Plugin {
  const plugin: Plugin = {
    manifest: definition.manifest,
    hooks: Object.freeze({ ...(definition.hooks ?? {}) }),
    ...(definition.tools ? { tools: Object.freeze(definition.tools.map(toKeelTool)) } : {}),
    ...(definition.services ? { services: Object.freeze({ ...definition.services }) } : {}),
    ...(definition.report ? { report: definition.report } : {}),
  };
  return Object.freeze(plugin);
}

export function isPluginLike(value: unknown): value is PluginDefinition {
  return typeof value === "object" && value !== null && typeof (value as { manifest?: unknown }).manifest === "object";
}
