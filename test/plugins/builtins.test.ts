import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compose } from "../../kernel/compose/index.js";
import type { Plugin } from "../../kernel/plugin/types.js";
import { BUILTIN_PLUGINS } from "../../plugins/builtins.js";
import { readStack } from "../../tools/stacks/load-stack.js";
import { PluginTester } from "../../tools/testing/plugin-tester.js";
import { checkDocs } from "../../tools/cli/commands/docs.js";
import { packageRoot } from "../../kernel/package-root.js";

const byName = new Map(BUILTIN_PLUGINS.map((p) => [p.manifest.name, p]));

/** A subset plus the providers of the ports its members require (their only hard dependencies). */
function withHardDependencies(names: string[]): Plugin[] {
  const set = new Set(names);
  for (const name of names) {
    for (const port of byName.get(name)!.manifest.requires ?? []) {
      const provider = BUILTIN_PLUGINS.find((p) => (p.manifest.provides ?? []).includes(port));
      if (provider) set.add(provider.manifest.name);
    }
    for (const dep of byName.get(name)!.manifest.requiresBefore ?? []) if (typeof dep === "string") set.add(dep);
  }
  return BUILTIN_PLUGINS.filter((p) => set.has(p.manifest.name));
}

describe("built-in plugins", () => {
  it("every built-in passes the manifest audit", () => {
    const tester = new PluginTester();
    for (const plugin of BUILTIN_PLUGINS) expect([plugin.manifest.name, tester.audit(plugin)]).toEqual([plugin.manifest.name, []]);
  });

  it("every pair composes without a race or any other problem", () => {
    const names = [...byName.keys()];
    for (const a of names) {
      for (const b of names) {
        if (a >= b) continue;
        expect(() => compose({ name: `${a}+${b}`, plugins: withHardDependencies([a, b]) })).not.toThrow();
      }
    }
  });

  it("any subset with its hard dependencies composes, in any listing order", () => {
    const names = [...byName.keys()];
    fc.assert(
      fc.property(fc.shuffledSubarray(names, { minLength: 1 }), (subset) => {
        const plugins = withHardDependencies(subset);
        const listed = [...plugins].sort((x, y) => subset.indexOf(x.manifest.name) - subset.indexOf(y.manifest.name));
        const composition = compose({ name: "subset", plugins: listed });
        expect(new Set(composition.order)).toEqual(new Set(plugins.map((p) => p.manifest.name)));
      }),
      { numRuns: 300 },
    );
  });

  it("the lead and subagent stacks resolve to their published orders", () => {
    const order = (name: string) => [...compose(readStack(name).stack, { plugins: BUILTIN_PLUGINS }).order];
    expect(order("lead")).toEqual(["receipts", "workspace", "sanitize", "error-fallback", "read-before-write", "tool-progress", "subagents", "batch-leasing", "durable-context", "summarization", "loop-detection", "finish-reason", "token-budget", "acceptance", "message-coalescing"]);
    expect(order("subagent")).toEqual(["receipts", "workspace", "sanitize", "error-fallback", "read-before-write", "tool-progress", "durable-context", "summarization", "loop-detection", "finish-reason", "token-budget", "acceptance", "message-coalescing"]);
  });

  it("docs/stacks.md and docs/errors.md match what the code generates", () => {
    expect(checkDocs(packageRoot())).toEqual([]);
  });
});
