import { defineConfig } from "vitest/config";

/**
 * The nemesis suite (`npm run test:nemesis`): its files end `.nemesis.ts`, so the default
 * `vitest run` (which collects `*.test.ts`) never runs them. One file at a time: the
 * scenarios share one cluster of real processes and inject faults into it.
 */
export default defineConfig({
  test: {
    root: new URL("../..", import.meta.url).pathname,
    include: ["test/nemesis/**/*.nemesis.ts"],
    fileParallelism: false,
    // Hang guards: a scenario is bounded by its own loops; these only catch a stuck one.
    testTimeout: 180_000,
    hookTimeout: 120_000,
  },
});
