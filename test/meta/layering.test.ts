import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { cruise, type ICruiseResult } from "dependency-cruiser";
import extractDepcruiseOptions from "dependency-cruiser/config-utl/extract-depcruise-options";
import extractTSConfig from "dependency-cruiser/config-utl/extract-ts-config";
import { describe, expect, it } from "vitest";

// The dependency rules live in .dependency-cruiser.cjs (layers tools → plugins → kernel →
// contracts, no plugin imports another, no cycle, the inspector's page shares only
// dependency-free modules); dependency-cruiser checks them.
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const FIXTURE = join(ROOT, "test/fixtures/layering");

async function cruiseTree(baseDir: string, dirs: string[]): Promise<ICruiseResult> {
  const options = await extractDepcruiseOptions(join(ROOT, ".dependency-cruiser.cjs"));
  const tsConfigFile = join(ROOT, "tsconfig.json");
  const result = await cruise(
    dirs,
    { ...options, baseDir, tsConfig: { fileName: tsConfigFile } },
    {},
    { tsConfig: extractTSConfig(tsConfigFile) },
  );
  if (typeof result.output === "string") throw new Error("expected the cruise result object, got a report string");
  return result.output;
}

/** A package is named by its name, wherever the install put it. */
function shown(path: string): string {
  return path.replace(/^.*node_modules\/((@[^/]+\/)?[^/]+)\/.*$/, "$1");
}

/** `rule: from → to`, or the whole path for a cycle. */
function violations(result: ICruiseResult): string[] {
  return result.summary.violations
    .map((v) => `${v.rule.name}: ${[v.from, ...(v.cycle ? v.cycle.map((c) => c.name) : [v.to])].map(shown).join(" → ")}`)
    .sort();
}

describe("dependency direction (dependency-cruiser)", () => {
  it("the product has no violation of the layer, plugin and cycle rules", async () => {
    const result = await cruiseTree(ROOT, ["contracts", "kernel", "plugins", "tools", "inspector"]);
    expect(violations(result)).toEqual([]);
    // The cruise really covered the code, type-only imports included.
    const sources = new Set(result.modules.map((m) => m.source));
    for (const file of ["contracts/errors.ts", "kernel/errors.ts", "plugins/builtins.ts", "tools/index.ts", "kernel/runs/finalize-run.ts", "inspector/api.ts"]) {
      expect(sources).toContain(file);
    }
    const finalize = result.modules.find((m) => m.source === "kernel/runs/finalize-run.ts")!;
    expect(finalize.dependencies.map((d) => d.resolved)).toContain("kernel/runs/outcomes.ts");
    const api = result.modules.find((m) => m.source === "inspector/api.ts")!;
    expect(api.dependencies.map((d) => d.resolved)).toContain("tools/sse/sse-reader.ts");
    const registry = result.modules.find((m) => m.source === "contracts/registry.ts")!;
    expect(registry.dependencies.map((d) => d.resolved)).toContain("contracts/errors.ts");
    expect(result.summary.totalCruised).toBeGreaterThan(250);
  }, 60_000);

  it("each rule bites: a fixture tree that breaks every rule once is reported rule by rule", async () => {
    const result = await cruiseTree(FIXTURE, ["contracts", "kernel", "plugins", "tools", "test", "inspector"]);
    expect(violations(result)).toEqual(
      [
        "browser-safe-modules-import-nothing: tools/sse/sse-reader.ts → tools/cli.ts",
        "contracts-import-only-contracts: contracts/shape.ts → kernel/core.ts",
        "inspector-imports-only-browser-safe-modules: inspector/page.ts → kernel/core.ts",
        "kernel-imports-no-plugin-or-tool: kernel/core.ts → plugins/alpha/index.ts",
        "no-cycle: contracts/pair.ts → contracts/shape.ts → contracts/pair.ts",
        "no-unresolvable-import: kernel/core.ts → ./missing.js",
        "plugin-imports-no-other-plugin: plugins/alpha/index.ts → plugins/beta/index.ts",
        "plugins-import-no-tool: plugins/alpha/index.ts → tools/cli.ts",
        "product-imports-no-dev-dependency: tools/cli.ts → fast-check",
        "tools-import-no-test: tools/cli.ts → test/fixture.ts",
      ].sort(),
    );
  }, 60_000);
});
