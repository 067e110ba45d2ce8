/**
 * Keel's dependency rules, checked by dependency-cruiser (test/meta/layering.test.ts runs
 * them in `npm test`; `npx depcruise kernel plugins contracts tools` prints the same report).
 *
 * The layers, top to bottom; a layer imports only from itself and the layers below it:
 *
 *   tools/      CLI, serve, scenario runner, `keel/testing` (tools/testing is part of it)
 *   plugins/    each plugin a folder; only the registry plugins/builtins.ts names several
 *   kernel/     compose, loop, run service; knows no plugin
 *   contracts/  versioned JSON contracts and the shared error base; imports nothing above
 *
 * inspector/ (the run inspector's page, bundled for the browser) stands beside them and
 * imports only the dependency-free modules named in BROWSER_SAFE.
 *
 * test/ sits above everything and may import anything; nothing in the product imports test/.
 * Type-only imports count (tsPreCompilationDeps), so a cycle through a type is a cycle too.
 */
const PRODUCT = "^(contracts|kernel|plugins|tools)/";
/** The product's modules the run inspector's browser bundle imports (dependency-free). */
const BROWSER_SAFE = "^(kernel/runs/run-summary|tools/sse/sse-reader)[.]ts$";

module.exports = {
  forbidden: [
    {
      name: "contracts-import-only-contracts",
      comment: "contracts/ is the bottom layer: it imports no kernel, plugin, tool or test file.",
      severity: "error",
      from: { path: "^contracts/" },
      to: { path: "^(kernel|plugins|tools|test)/" },
    },
    {
      name: "kernel-imports-no-plugin-or-tool",
      comment: "kernel/ knows no plugin: it imports only kernel/ and contracts/.",
      severity: "error",
      from: { path: "^kernel/" },
      to: { path: "^(plugins|tools|test)/" },
    },
    {
      name: "plugins-import-no-tool",
      comment: "plugins/ import kernel/ and contracts/, never tools/ or test/.",
      severity: "error",
      from: { path: "^plugins/" },
      to: { path: "^(tools|test)/" },
    },
    {
      name: "tools-import-no-test",
      comment: "Nothing in the product imports test files.",
      severity: "error",
      from: { path: "^tools/" },
      to: { path: "^test/" },
    },
    {
      name: "plugin-imports-no-other-plugin",
      comment: "A plugin imports only its own files; share code through kernel/ ports or contracts/. The registry plugins/builtins.ts is outside every plugin folder, so it may name them all.",
      severity: "error",
      from: { path: "^plugins/([^/]+)/" },
      to: { path: "^plugins/", pathNot: "^plugins/$1/" },
    },
    {
      name: "inspector-imports-only-browser-safe-modules",
      comment:
        "The run inspector's page (inspector/, bundled for the browser) shares with the product only its dependency-free modules: the feed's wire types and Keel's SSE reader.",
      severity: "error",
      from: { path: "^inspector/" },
      to: { path: "^(contracts|kernel|plugins|tools)/", pathNot: BROWSER_SAFE },
    },
    {
      name: "browser-safe-modules-import-nothing",
      comment: "A module the inspector's bundle shares imports nothing, so the bundle takes nothing else of the product (and Node's modules stay out of the browser).",
      severity: "error",
      from: { path: BROWSER_SAFE },
      to: {},
    },
    {
      name: "no-cycle",
      comment: "No import cycle, not even through a type: a module graph is loaded bottom-up.",
      severity: "error",
      from: { path: PRODUCT },
      to: { circular: true },
    },
    {
      name: "no-unresolvable-import",
      comment: "Every import resolves; an unresolved one would escape the rules above.",
      severity: "error",
      from: { path: PRODUCT },
      to: { couldNotResolve: true },
    },
    {
      name: "product-imports-no-dev-dependency",
      comment:
        "The published package runs without devDependencies (the benchmarks under tools/bench/ and the inspector's bundle build under tools/inspector/ are development tools, not code the package runs); a peer dependency is also a devDependency, pinned for development, and the user installs it.",
      severity: "error",
      from: { path: PRODUCT, pathNot: "^tools/(bench|inspector)/" },
      to: { dependencyTypes: ["npm-dev"], dependencyTypesNot: ["npm-peer"] },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^(dist|node_modules|test/fixtures)/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    // Resolve packages the way Node loads this ESM code (their `exports` `import` condition).
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "node", "default"],
    },
    moduleSystems: ["es6", "cjs"],
  },
};
