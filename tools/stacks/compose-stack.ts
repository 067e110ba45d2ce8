/**
 * `compose` as the `keel` package exports it: the kernel's `compose`, with the built-in
 * plugins available to the stack's entries by name (as `keel compose` and `loadStack`
 * resolve them), and a STACK given as a string read like the CLI's argument (a built-in
 * stack name, or a stack@1 file path). Plugins in `options.plugins` come before the
 * built-ins, so one named like a built-in replaces it. The kernel's own `compose` (which
 * imports no plugin) resolves names against `options.plugins` only.
 */
import { compose as composeResolved } from "../../kernel/compose/index.js";
import type { ComposeOptions, Composition, StackInput } from "../../kernel/compose/types.js";
import type { Plugin } from "../../kernel/plugin/types.js";
import { BUILTIN_PLUGINS } from "../../plugins/builtins.js";
import { readStack } from "./load-stack.js";

export function compose(stack: StackInput | string, options: ComposeOptions = {}): Composition {
  const resolved = typeof stack === "string" ? readStack(stack).stack : stack;
  return composeResolved(resolved, { ...options, plugins: withBuiltins(options.plugins) });
}

function withBuiltins(plugins: ComposeOptions["plugins"]): ComposeOptions["plugins"] {
  if (plugins === undefined) return BUILTIN_PLUGINS;
  if (Array.isArray(plugins)) return [...(plugins as readonly Plugin[]), ...BUILTIN_PLUGINS];
  const byName = Object.fromEntries(BUILTIN_PLUGINS.map((p) => [p.manifest.name, p]));
  return { ...byName, ...(plugins as Readonly<Record<string, Plugin>>) };
}
