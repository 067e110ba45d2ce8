import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { ERRORS } from "../../kernel/errors.js";
import { definePlugin } from "../../kernel/plugin/define-plugin.js";
import type { Plugin } from "../../kernel/plugin/types.js";
import { PluginTester, PluginTestFailure, type PluginTestCase, type TestFramework } from "../../tools/testing/plugin-tester.js";
import { watchInPlaceMutations, type InPlaceMutation } from "../../tools/testing/state-guard.js";

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
const failureOf = (promise: Promise<unknown>) => promise.then(() => undefined, (e: unknown) => e as PluginTestFailure);

describe("PluginTester", () => {
  it("runs cases against a stack that includes the plugin and returns their reports", async () => {
    const [report] = await tester.run(stopper, [{ name: "stops", scenario: looping, expect: { status: "partial", stopReasons: ["loop_capped"], text: "partial answer" } }]);
    expect(report!.turns.total).toBe(2);
    expect(report!.composition.lead).toEqual(["workspace", "stopper"]);
  });

  it("fails a case whose expectation does not hold, naming the case, with a code", async () => {
    const failure = await failureOf(tester.run(stopper, [{ name: "wrong", scenario: looping, expect: { status: "succeeded" } }]));
    expect(failure).toBeInstanceOf(PluginTestFailure);
    expect(failure!.code).toBe("KEEL_ERR_TESTER_EXPECTATION");
    expect(failure!.message).toBe("KEEL_ERR_TESTER_EXPECTATION: case `wrong`: expected status `succeeded`, got `partial` (partial answer)");
    expect(failure!.report?.outcome.status).toBe("partial");
  });

  it("reports every failing case, not only the first", async () => {
    const failure = await failureOf(
      tester.run(stopper, [
        { name: "first wrong", scenario: looping, expect: { status: "succeeded" } },
        { name: "right", scenario: looping, expect: { status: "partial" } },
        { name: "second wrong", scenario: looping, expect: { stopReasons: [] } },
      ]),
    );
    expect(failure!.code).toBe("KEEL_ERR_TESTER_FAILED");
    expect(failure!.failures.map((f) => [f.case, f.code])).toEqual([
      ["first wrong", "KEEL_ERR_TESTER_EXPECTATION"],
      ["second wrong", "KEEL_ERR_TESTER_EXPECTATION"],
    ]);
    expect(failure!.message).toMatch(/^2 plugin test cases failed:\n {2}KEEL_ERR_TESTER_EXPECTATION: case `first wrong`.*\n {2}KEEL_ERR_TESTER_EXPECTATION: case `second wrong`: expected stop reasons \[\], got \["loop_capped"\]$/);
  });

  it("fails when the plugin writes a channel it did not declare", async () => {
    const rogue = { manifest: { ...manifest, name: "rogue", hooks: { afterModel: { observes: ["messages"] } } }, hooks: stopper.hooks };
    const failure = await failureOf(tester.run(rogue, [{ name: "any", scenario: looping, expect: { status: "partial" } }]));
    expect(failure).toBeInstanceOf(PluginTestFailure);
    expect(failure!.code).toBe("KEEL_ERR_TESTER_MANIFEST_BREACH");
    expect(failure!.message).toContain("the plugin broke its manifest: KEEL_ERR_HOOK_UNDECLARED_MUTATION");
  });

  it("fails a plugin that catches the kernel's refusal of an undeclared write", async () => {
    const sly = definePlugin({
      manifest: { ...manifest, name: "sly", hooks: { wrapModelCall: {} } },
      hooks: {
        wrapModelCall: async (request, next, ctx) => {
          try {
            ctx.update({ stopReasons: [{ reason: "loop_capped", by: "sly", turn: ctx.turn, request: "final" }] });
          } catch {
            // refused, and swallowed
          }
          return next(request);
        },
      },
    });
    const failure = await failureOf(tester.run(sly, [{ name: "any", scenario: { input: "go", agents: { lead: { turns: [{ content: "done" }] } } }, expect: { status: "succeeded" } }]));
    expect(failure!.code).toBe("KEEL_ERR_TESTER_MANIFEST_BREACH");
    expect(failure!.message).toContain("KEEL_ERR_HOOK_UNDECLARED_MUTATION");
  });

  it("audits the manifest before running anything: a missing config schema is only a warning", async () => {
    const { config: _config, ...withoutConfig } = manifest;
    const plugin = { manifest: withoutConfig, hooks: stopper.hooks };
    expect(tester.audit(plugin)).toMatchObject([{ pointer: "/config", severity: "warning" }]);
    await expect(tester.run(plugin, [{ name: "stops", scenario: looping, expect: { status: "partial" } }])).resolves.toHaveLength(1);
    const undeclared = { manifest, hooks: { ...stopper.hooks, beforeModel: () => undefined } };
    expect(tester.audit(undeclared)).toMatchObject([{ code: "KEEL_ERR_MANIFEST_HOOKS", pointer: "/hooks/beforeModel" }]);
    const failure = await failureOf(tester.run(undeclared, []));
    expect(failure!.code).toBe("KEEL_ERR_TESTER_MANIFEST");
    expect(failure!.message).toContain("manifest audit of `stopper` failed");
  });

  it("every failure code is in the errors table", () => {
    for (const code of ["KEEL_ERR_TESTER_CASE_INVALID", "KEEL_ERR_TESTER_MANIFEST", "KEEL_ERR_TESTER_EXPECTATION", "KEEL_ERR_TESTER_MANIFEST_BREACH", "KEEL_ERR_TESTER_STATE_MUTATED", "KEEL_ERR_TESTER_NOT_REPEATABLE", "KEEL_ERR_TESTER_FAILED"]) {
      expect(ERRORS).toHaveProperty(code);
    }
  });
});

describe("PluginTester checks every case before running any", () => {
  let calls = 0;
  const counted = definePlugin({ manifest, hooks: { afterModel: (s, ctx) => (calls++, stopper.hooks.afterModel!(s, ctx)) } });
  const bad = (testCase: unknown) => tester.checkCases([testCase as PluginTestCase]).map((f) => [f.code, f.message]);

  it.each([
    [{ name: "typo", scenario: looping, expected: { status: "partial" } }, "case `typo` is invalid: unknown key `expected`; a case has `name`, `scenario`, `expect`, `assert`; it has no expectation: give at least one `expect` entry or an `assert` function"],
    [{ name: "expect typo", scenario: looping, expect: { stopReason: ["x"] } }, "case `expect typo` is invalid: unknown key in `expect`: `stopReason`; `expect` has `status`, `stopReasons`, `text`, `errorType`; it has no expectation: give at least one `expect` entry or an `assert` function"],
    [{ name: "nothing", scenario: looping }, "case `nothing` is invalid: it has no expectation: give at least one `expect` entry or an `assert` function"],
    [{ name: "empty expect", scenario: looping, expect: {} }, "case `empty expect` is invalid: it has no expectation: give at least one `expect` entry or an `assert` function"],
    [{ name: "no agents", scenario: { input: "go" }, expect: { status: "partial" } }, "case `no agents` is invalid: `scenario/agents` missing required property `agents` (scenario@1)"],
    [{ name: "bad input", scenario: { ...looping, input: 3, maxTurn: 2 }, expect: { status: "partial" } }, "case `bad input` is invalid: `scenario/maxTurn` unknown property `maxTurn` (scenario@1); `scenario/input` must be string (scenario@1)"],
    [{ name: "own stack", scenario: { ...looping, stack: "lead" }, expect: { status: "partial" } }, "case `own stack` is invalid: `scenario` sets `stack`, which the tester fills in (the stack is the tester's `stack` option)"],
  ])("rejects %j", (testCase, message) => {
    expect(bad(testCase)).toEqual([["KEEL_ERR_TESTER_CASE_INVALID", message]]);
  });

  it("rejects duplicate names, and runs nothing when any case is malformed", async () => {
    calls = 0;
    const failure = await failureOf(
      tester.run(counted, [
        { name: "same", scenario: looping, expect: { status: "partial" } },
        { name: "same", scenario: looping, expect: { status: "partial" } },
        { name: "typo", scenario: looping, expect: { staus: "partial" } } as unknown as PluginTestCase,
      ]),
    );
    expect(failure!.failures.map((f) => [f.case, f.code])).toEqual([
      ["same", "KEEL_ERR_TESTER_CASE_INVALID"],
      ["typo", "KEEL_ERR_TESTER_CASE_INVALID"],
    ]);
    expect(failure!.failures[0]!.message).toBe("case `same` is invalid: the name is used by case #0 too; case names must be unique");
    expect(calls).toBe(0);
  });

  it("an `assert` alone is an expectation", () => {
    expect(tester.checkCases([{ name: "asserts", scenario: looping, assert: () => undefined }])).toEqual([]);
  });
});

describe("PluginTester detects in-place mutation of what it hands the plugin", () => {
  const base = { ...manifest, name: "editor" };

  it("a state hook that edits a message in place fails with KEEL_ERR_TESTER_STATE_MUTATED naming channel and hook", async () => {
    const editor = definePlugin({
      manifest: { ...base, hooks: { afterModel: { observes: ["messages"], mutates: ["stopReasons"] } } },
      hooks: {
        afterModel: (state, ctx) => {
          const messages = state.messages as AIMessage[];
          messages[0]!.additional_kwargs.edited = true;
          return { stopReasons: [{ reason: "loop_capped", by: "editor", turn: ctx.turn, request: "final" }] };
        },
      },
    });
    const failure = await failureOf(tester.run(editor, [{ name: "edits", scenario: looping, expect: { status: "partial" } }]));
    expect(failure!.code).toBe("KEEL_ERR_TESTER_STATE_MUTATED");
    // The kernel's enforcement stops the edit at the write (state is frozen); the tester reports it as the mutation it is.
    expect(failure!.message).toContain("the plugin changed in place state it was handed: plugin `editor` changed a value it was handed in place in afterModel");
  });

  it("a wrap hook that pushes onto the request's messages in place fails; one that passes a new request does not", async () => {
    const pushes = definePlugin({
      manifest: { ...base, hooks: { wrapModelCall: { observes: ["messages"] }, afterModel: manifest.hooks.afterModel } },
      hooks: {
        wrapModelCall: (request, next) => {
          request.messages.push(new HumanMessage("extra"));
          return next(request);
        },
        afterModel: stopper.hooks.afterModel!,
      },
    });
    const failure = await failureOf(tester.run(pushes, [{ name: "pushes", scenario: looping, expect: { status: "partial" } }]));
    expect(failure!.code).toBe("KEEL_ERR_TESTER_STATE_MUTATED");
    expect(failure!.message).toContain("plugin `editor` changed a value it was handed in place in wrapModelCall");

    // Passing a new request is a change of `model.request`: the manifest declares it.
    const copies = definePlugin({
      manifest: { ...pushes.manifest, hooks: { ...pushes.manifest.hooks, wrapModelCall: { observes: ["messages"], mutates: ["model.request"] } } },
      hooks: { wrapModelCall: (request, next) => next({ ...request, messages: [...request.messages, new HumanMessage("extra")] }), afterModel: stopper.hooks.afterModel! },
    });
    await expect(tester.run(copies, [{ name: "copies", scenario: looping, expect: { status: "partial" } }])).resolves.toHaveLength(1);
  });

  it("the watch sees edits at any depth and nothing else", async () => {
    const seen: InPlaceMutation[] = [];
    const plugin: Plugin = {
      manifest: { ...base, hooks: { beforeModel: { observes: ["messages", "loop"] } } },
      hooks: {
        beforeModel: (state) => {
          (state.loop as { counts: { a: number } }).counts.a++;
          return undefined;
        },
      },
    };
    const watched = watchInPlaceMutations(plugin, (m) => seen.push(m));
    const state = Object.freeze({ messages: [new AIMessage("hi")], loop: { counts: { a: 1 } } });
    await watched.hooks.beforeModel!(state, {} as never);
    expect(seen).toEqual([{ hook: "beforeModel", path: "loop" }]);
    expect(watched.manifest).toBe(plugin.manifest);
  });
});

describe("PluginTester runs each case twice on fresh runtimes", () => {
  const leaky = () => {
    let stoppedOnce = false;
    return definePlugin({
      manifest: { ...manifest, name: "leaky" },
      hooks: {
        afterModel: (s, ctx) => {
          if (stoppedOnce) return undefined;
          stoppedOnce = true;
          return stopper.hooks.afterModel!(s, ctx);
        },
      },
    });
  };
  const once = { input: "go", agents: { lead: { turns: [{ content: "one", toolCalls: [{ name: "ls", args: {} }] }, { content: "done" }] } } };

  it("state kept between runs (a module variable) fails with KEEL_ERR_TESTER_NOT_REPEATABLE", async () => {
    const failure = await failureOf(tester.run(leaky(), [{ name: "leaks", scenario: once, expect: { status: "partial" } }]));
    expect(failure!.code).toBe("KEEL_ERR_TESTER_NOT_REPEATABLE");
    expect(failure!.message).toMatch(/^KEEL_ERR_TESTER_NOT_REPEATABLE: case `leaks`: a second run on a fresh runtime gave another report \(first difference at `\/outcome/);
  });

  it("negative control: with `repeat: false` the same plugin passes", async () => {
    const single = new PluginTester({ stack: { name: "t", plugins: ["workspace"] }, repeat: false });
    await expect(single.run(leaky(), [{ name: "leaks", scenario: once, expect: { status: "partial" } }])).resolves.toHaveLength(1);
  });
});

describe("PluginTester.test registers one test per case", () => {
  function fakeFramework() {
    const registered: Array<{ name: string; body: () => Promise<void> }> = [];
    const suites: string[] = [];
    const framework: TestFramework = {
      describe: (name, body) => {
        suites.push(name);
        body();
      },
      it: (name, body) => void registered.push({ name, body }),
    };
    return { framework, registered, suites };
  }
  const cases: PluginTestCase[] = [
    { name: "passes", scenario: looping, expect: { status: "partial" } },
    { name: "fails", scenario: looping, expect: { status: "succeeded" } },
    { name: "malformed", scenario: looping, expect: { statuz: "partial" } } as unknown as PluginTestCase,
  ];

  it("under a framework: a describe named after the plugin, one test for the audit and one per case, each failing on its own", async () => {
    const { framework, registered, suites } = fakeFramework();
    await new PluginTester({ stack: { name: "t", plugins: ["workspace"] }, ...framework }).test(stopper, cases);
    expect(suites).toEqual(["stopper"]);
    expect(registered.map((t) => t.name)).toEqual(["manifest audit", "passes", "fails", "malformed"]);
    const outcomes = await Promise.all(registered.map((t) => t.body().then(() => "ok", (e: PluginTestFailure) => e.code)));
    expect(outcomes).toEqual(["ok", "ok", "KEEL_ERR_TESTER_EXPECTATION", "KEEL_ERR_TESTER_CASE_INVALID"]);
  });

  it("PluginTester.describe / PluginTester.it are used when set (as with ESLint's RuleTester)", async () => {
    const { framework, registered } = fakeFramework();
    PluginTester.describe = framework.describe;
    PluginTester.it = framework.it;
    try {
      await new PluginTester().test(stopper, [cases[0]!]);
    } finally {
      PluginTester.describe = undefined;
      PluginTester.it = undefined;
    }
    expect(registered.map((t) => t.name)).toEqual(["manifest audit", "passes"]);
  });

  it("standalone (no framework): runs every case and rejects with all failures", async () => {
    expect((globalThis as { it?: unknown }).it).toBeUndefined();
    const failure = await failureOf(tester.test(stopper, cases));
    expect(failure!.failures.map((f) => [f.case, f.code])).toEqual([["malformed", "KEEL_ERR_TESTER_CASE_INVALID"]]);
    const ran = await failureOf(tester.test(stopper, cases.slice(0, 2)));
    expect(ran!.failures.map((f) => [f.case, f.code])).toEqual([["fails", "KEEL_ERR_TESTER_EXPECTATION"]]);
  });
});
