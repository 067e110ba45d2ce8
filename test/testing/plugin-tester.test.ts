import { describe, expect, it } from "vitest";
import { definePlugin } from "../../kernel/plugin/define-plugin.js";
import { PluginTester, PluginTestFailure } from "../../tools/testing/plugin-tester.js";

const manifest = {
  name: "stopper",
  version: "1.0.0",
  kind: "middleware" as const,
  kernel: ">=0.1.0",
  description: "Stops after the first model call",
  hooks: { afterModel: { observes: ["messages"], mutates: ["stopReasons"] } },
  config: { type: "object", additionalProperties: false },
};
const stopper = definePlugin({
  manifest,
  hooks: { afterModel: (_s, ctx) => ({ stopReasons: [{ reason: "loop_capped", by: "stopper", turn: ctx.turn, request: "final" }] }) },
});
const looping = { input: "go", agents: { lead: { turns: [{ content: "partial answer", toolCalls: [{ name: "ls", args: {} }] }], then: "repeat-last" as const } } };
const tester = new PluginTester({ stack: { name: "t", plugins: ["workspace"] } });

describe("PluginTester", () => {
  it("runs cases against a stack that includes the plugin and returns their reports", async () => {
    const [report] = await tester.run(stopper, [{ name: "stops", scenario: looping, expect: { status: "partial", stopReasons: ["loop_capped"], text: "partial answer" } }]);
    expect(report!.turns.total).toBe(2);
    expect(report!.composition.lead).toEqual(["workspace", "stopper"]);
  });

  it("fails a case whose expectation does not hold, naming the case", async () => {
    await expect(tester.run(stopper, [{ name: "wrong", scenario: looping, expect: { status: "succeeded" } }])).rejects.toThrow(
      "case `wrong`: expected status `succeeded`, got `partial` (partial answer)",
    );
  });

  it("fails when the plugin writes a channel it did not declare", async () => {
    const rogue = { manifest: { ...manifest, name: "rogue", hooks: { afterModel: { observes: ["messages"] } } }, hooks: stopper.hooks };
    const failure = await tester.run(rogue, [{ name: "any", scenario: looping }]).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(PluginTestFailure);
    expect((failure as Error).message).toContain("the plugin broke its manifest: KEEL_ERR_HOOK_UNDECLARED_MUTATION");
  });

  it("audits the manifest before running anything: a config schema must be present", async () => {
    const { config: _config, ...withoutConfig } = manifest;
    const plugin = { manifest: withoutConfig, hooks: stopper.hooks };
    expect(tester.audit(plugin).map((p) => p.pointer)).toEqual(["/config"]);
    await expect(tester.run(plugin, [])).rejects.toThrow("manifest audit of `stopper` failed");
    const undeclared = { manifest, hooks: { ...stopper.hooks, beforeModel: () => undefined } };
    expect(tester.audit(undeclared)).toMatchObject([{ code: "KEEL_ERR_MANIFEST_HOOKS", pointer: "/hooks/beforeModel" }]);
  });
});
