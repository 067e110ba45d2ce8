/** The `keel` package entry: the kernel API plus stack loading and the built-in plugins. */
export * from "../kernel/index.js";
export { loadStack, readStack, loadPluginModule, BUILTIN_STACKS, type LoadedStack } from "./stacks/load-stack.js";
export { BUILTIN_PLUGINS, builtinPlugin } from "../plugins/builtins.js";

/**
 * Deprecated here: the host internals (stores, bridges, executors, reducers,
 * `sanitizeRunRequest`, `buildRunReport`, …) moved to `keel/host`. `keel` re-exports them
 * for one more minor version (they go in 0.3.0); import them from `keel/host`.
 */
export * from "./host/index.js";
