import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

// Needs the built package (`npm test` runs `tsc` first): the suite imports dist/tools/testing.
const suite = join("test", "fixtures", "plugin-tester", "node-test-suite.mjs");

describe("PluginTester under node:test", () => {
  it("registers a suite named after the plugin with one test per case, by itself, and fails only the failing case", () => {
    const run = spawnSync(process.execPath, ["--test", "--test-reporter=tap", suite], { encoding: "utf8", timeout: 25_000 });
    expect(run.status).toBe(1);
    const lines = run.stdout.split("\n").map((l) => l.trim());
    expect(lines).toContain("# Subtest: stopper");
    expect(lines).toContain("ok 1 - manifest audit");
    expect(lines).toContain("ok 2 - passes");
    expect(lines).toContain("not ok 3 - fails");
    expect(run.stdout).toContain("error: 'KEEL_ERR_TESTER_EXPECTATION: case `fails`: expected status `succeeded`, got `partial` (partial answer)'");
    expect(lines).toContain("# pass 2");
    expect(lines).toContain("# fail 1");
  });
});
