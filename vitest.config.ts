import { configDefaults, defineConfig } from "vitest/config";

// `.keel/` holds what runs wrote (databases, thread workspaces with agent-written files such as
// `*.test.mjs`); `dist/` holds the compiled copy of the sources. Neither is a test suite.
export const excludedFromTests = [...configDefaults.exclude, "**/.keel/**", "dist/**", ".scratch/**"];

export default defineConfig({
  test: {
    exclude: excludedFromTests,
    // Fixture packages (test/fixtures/third-party-plugin) import `keel` by name: link it first.
    globalSetup: ["test/link-fixture-packages.ts"],
    // Hang guards, not performance limits: the machines are shared 2-core boxes, and a
    // scenario that takes 2 s alone can take 10 s while other suites run beside it.
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
