/** The `keel` package entry: the kernel API plus stack loading and the built-in plugins. */
export * from "../kernel/index.js";
export { loadStack, readStack, loadPluginModule, BUILTIN_STACKS, type LoadedStack } from "./stacks/load-stack.js";
export { BUILTIN_PLUGINS, builtinPlugin } from "../plugins/builtins.js";
