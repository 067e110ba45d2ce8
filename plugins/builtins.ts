import type { Plugin } from "../kernel/plugin/types.js";
import workspace from "./workspace/index.js";

/**
 * The built-in plugins, in a fixed listing order. This file is the plugin registry, not a
 * plugin: it is the one place that imports every plugin folder.
 */
export const BUILTIN_PLUGINS: readonly Plugin[] = Object.freeze([workspace]);

export function builtinPlugin(name: string): Plugin | undefined {
  return BUILTIN_PLUGINS.find((p) => p.manifest.name === name);
}
