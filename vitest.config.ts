import { configDefaults, defineConfig } from "vitest/config";

// `.keel/` holds what runs wrote (databases, thread workspaces with agent-written files such as
// `*.test.mjs`); `dist/` holds the compiled copy of the sources. Neither is a test suite.
export const excludedFromTests = [...configDefaults.exclude, "**/.keel/**", "dist/**", ".scratch/**"];

export default defineConfig({
  test: {
    exclude: excludedFromTests,
  },
});
