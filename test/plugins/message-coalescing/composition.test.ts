import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compose } from "../../../kernel/compose/index.js";
import type { Plugin } from "../../../kernel/plugin/types.js";
import { BUILTIN_PLUGINS } from "../../../plugins/builtins.js";
import durableContext from "../../../plugins/durable-context/index.js";
import messageCoalescing from "../../../plugins/message-coalescing/index.js";
import summarization from "../../../plugins/summarization/index.js";
import { PluginTester } from "../../../tools/testing/plugin-tester.js";

/**
 * The three context plugins with the built-ins registered today (the lead registers these
 * in plugins/builtins.ts): every pair and random subsets compose without a race, and the
 * wrapModelCall onion has durable-context inside receipts and message-coalescing innermost.
 */
const ours = [durableContext, summarization, messageCoalescing];
const all: Plugin[] = [...BUILTIN_PLUGINS.filter((p) => !ours.some((o) => o.manifest.name === p.manifest.name)), ...ours];
const byName = new Map(all.map((p) => [p.manifest.name, p]));

function withHardDependencies(names: string[]): Plugin[] {
  const set = new Set(names);
  for (const name of names) {
    for (const port of byName.get(name)!.manifest.requires ?? []) {
      const provider = all.find((p) => (p.manifest.provides ?? []).includes(port));
      if (provider) set.add(provider.manifest.name);
    }
  }
  return all.filter((p) => set.has(p.manifest.name));
}

describe("context plugins compose with the built-ins", () => {
  it("pass the manifest audit", () => {
    const tester = new PluginTester();
    for (const plugin of ours) expect([plugin.manifest.name, tester.audit(plugin)]).toEqual([plugin.manifest.name, []]);
  });

  it("every pair involving one of them composes", () => {
    for (const mine of ours.map((p) => p.manifest.name)) {
      for (const other of byName.keys()) {
        if (other === mine) continue;
        expect(() => compose({ name: `${mine}+${other}`, plugins: withHardDependencies([mine, other]) })).not.toThrow();
      }
    }
  });

  it("random subsets compose in any listing order", () => {
    fc.assert(
      fc.property(fc.shuffledSubarray([...byName.keys()], { minLength: 1 }), (subset) => {
        const plugins = withHardDependencies(subset).sort((x, y) => subset.indexOf(x.manifest.name) - subset.indexOf(y.manifest.name));
        expect(new Set(compose({ name: "subset", plugins }).order)).toEqual(new Set(plugins.map((p) => p.manifest.name)));
      }),
      { numRuns: 200 },
    );
  });

  it("puts durable-context inside receipts and message-coalescing innermost in wrapModelCall; summarization after sanitize", () => {
    const composition = compose({ name: "lead-like", plugins: [...all].reverse() });
    const wrap = [...composition.hooks.wrapModelCall];
    expect(wrap.indexOf("receipts")).toBeLessThan(wrap.indexOf("durable-context"));
    expect(wrap.at(-1)).toBe("message-coalescing");
    const before = [...composition.hooks.beforeModel];
    expect(before.indexOf("sanitize")).toBeLessThan(before.indexOf("summarization"));
  });
});
