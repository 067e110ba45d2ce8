import { describe, expect, it } from "vitest";
import { definePlugin } from "../../kernel/plugin/define-plugin.js";
import { PluginTester } from "../../tools/testing/plugin-tester.js";

// Real registration with vitest's own describe/it: this file's tests are the cases below
// (`stopper > manifest audit`, `stopper > stops the loop`, `stopper > answers plainly`).
const stopper = definePlugin({
  manifest: {
    name: "stopper",
    version: "1.0.0",
    kind: "middleware",
    kernel: ">=0.1.0",
    description: "Stops after the first model call",
    hooks: { afterModel: { observes: ["messages"], mutates: ["stopReasons"] } },
    config: { type: "object", additionalProperties: false },
  },
  hooks: { afterModel: (_s, ctx) => ({ stopReasons: [{ reason: "loop_capped", by: "stopper", turn: ctx.turn, request: "final" }] }) },
});
const registered: string[] = [];
const recordingIt = (name: string, body: () => Promise<void>) => {
  registered.push(name);
  return it(name, body);
};

new PluginTester({ stack: { name: "t", plugins: ["workspace"] }, describe, it: recordingIt }).test(stopper, [
  {
    name: "stops the loop",
    scenario: { input: "go", agents: { lead: { turns: [{ content: "partial", toolCalls: [{ name: "ls", args: {} }] }], then: "repeat-last" } } },
    expect: { status: "partial", stopReasons: ["loop_capped"] },
  },
  { name: "answers plainly", scenario: { input: "go", agents: { lead: { turns: [{ content: "hello" }] } } }, expect: { stopReasons: ["loop_capped"], text: /loop_capped/ } },
]);

describe("registration", () => {
  it("registered one vitest test per case, plus the manifest audit", () => {
    expect(registered).toEqual(["manifest audit", "stops the loop", "answers plainly"]);
  });
});
