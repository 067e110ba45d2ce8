import { describe, expect, it } from "vitest";
import { compose } from "../../kernel/compose/compose.js";
import type { ComposeOptions, StackInput } from "../../kernel/compose/types.js";
import { CompositionError, type CompositionProblem } from "../../kernel/errors.js";
import { pluginFrom } from "./plugin-factory.js";

function problemsOf(stack: StackInput, options?: ComposeOptions): readonly CompositionProblem[] {
  let thrown: unknown;
  try {
    compose(stack, options);
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(CompositionError);
  expect((thrown as CompositionError).code).toBe("KEEL_ERR_COMPOSE_REJECTED");
  return (thrown as CompositionError).problems;
}

describe("problems", () => {
  it("collects every problem of every step and throws once", () => {
    const plugins = [
      pluginFrom({ name: "broken", version: "x" }),
      pluginFrom({ name: "dup" }),
      pluginFrom({ name: "future", kernel: ">=99" }),
      pluginFrom({ name: "claims-messages", channels: { messages: { schema: {}, reducer: "append" } } }),
      pluginFrom({ name: "reads-nothing", hooks: { beforeModel: { observes: ["void"] } } }),
      pluginFrom({ name: "consumer", contracts: { consumes: ["ghost@1"] }, requires: ["store"] }),
      pluginFrom({ name: "dependent", requiresBefore: ["absent", "looper"] }),
      pluginFrom({ name: "looper", requiresBefore: ["dependent"] }),
      pluginFrom({ name: "w1", hooks: { afterModel: { mutates: ["messages"] } } }),
      pluginFrom({ name: "w2", hooks: { afterModel: { mutates: ["messages"] } } }),
      pluginFrom({ name: "strict", config: { type: "object", properties: { n: { type: "integer" } }, additionalProperties: false } }),
    ];
    const stack: StackInput = {
      name: "everything-wrong",
      plugins: ["nope", "broken", "dup", "dup", "future", "claims-messages", "reads-nothing", "consumer", "dependent", "looper", "w1", "w2", { name: "strict", config: { n: "three" } }],
    };
    const problems = problemsOf(stack, { plugins, config: [{ stranger: {} }] });
    expect(problems.map((p) => p.code)).toEqual([
      "KEEL_ERR_COMPOSE_UNKNOWN_PLUGIN",
      "KEEL_ERR_MANIFEST_INVALID",
      "KEEL_ERR_COMPOSE_DUPLICATE",
      "KEEL_ERR_COMPOSE_KERNEL_RANGE",
      "KEEL_ERR_COMPOSE_CHANNEL_OWNER",
      "KEEL_ERR_COMPOSE_UNKNOWN_CHANNEL",
      "KEEL_ERR_COMPOSE_CONTRACT",
      "KEEL_ERR_COMPOSE_MISSING_PORT",
      "KEEL_ERR_COMPOSE_MISSING_DEP",
      "KEEL_ERR_COMPOSE_CYCLE",
      "KEEL_ERR_COMPOSE_RACE",
      "KEEL_ERR_CONFIG_UNKNOWN_PLUGIN",
      "KEEL_ERR_CONFIG_INVALID",
    ]);
    expect(problems.find((p) => p.code === "KEEL_ERR_COMPOSE_CYCLE")!.cycle).toEqual(["dependent", "looper", "dependent"]);
    expect(problems.find((p) => p.code === "KEEL_ERR_COMPOSE_RACE")!.plugins).toEqual(["w1", "w2"]);
  });

  it("prints the rule, the plugins, the declaration and the fix (STYLE.md example 3)", () => {
    const plugins = [
      pluginFrom({ name: "loop-detection", hooks: { afterModel: { mutates: ["messages"] } } }),
      pluginFrom({ name: "token-budget", hooks: { afterModel: { mutates: ["messages"] } } }),
    ];
    let error: CompositionError | undefined;
    try {
      compose({ name: "s", plugins: ["loop-detection", "token-budget"] }, { plugins });
    } catch (e) {
      error = e as CompositionError;
    }
    expect(error!.message).toContain(
      'KEEL_ERR_COMPOSE_RACE: `loop-detection` and `token-budget` both mutate `messages` in afterModel with no order between them; add ["loop-detection","token-budget"] or ["token-budget","loop-detection"] to `order`',
    );
  });

  it("names the declaration of each edge of a cycle", () => {
    const plugins = [pluginFrom({ name: "a", requiresBefore: [{ name: "b", optional: true }] }), pluginFrom({ name: "b" })];
    const [problem] = problemsOf({ name: "s", plugins: ["a", "b"], order: [["a", "b"]] }, { plugins });
    expect(problem).toMatchObject({ code: "KEEL_ERR_COMPOSE_CYCLE", cycle: ["a", "b", "a"], plugins: ["a", "b"] });
    expect(problem!.message).toBe(
      'ordering cycle `a` → `b` → `a`: `a` before `b` (stack order ["a","b"]), `b` before `a` (`a` requiresBefore `b` (optional)); remove or reverse one of these declarations',
    );
  });

  it("reports one cycle per strongly connected part and still orders the rest for the race check", () => {
    const plugins = [
      pluginFrom({ name: "x", requiresBefore: ["y"] }),
      pluginFrom({ name: "y", requiresBefore: ["x"] }),
      pluginFrom({ name: "u", hooks: { beforeModel: { mutates: ["messages"] } } }),
      pluginFrom({ name: "v", hooks: { beforeModel: { mutates: ["messages"] } } }),
    ];
    const problems = problemsOf({ name: "s", plugins: ["x", "y", "u", "v"] }, { plugins });
    expect(problems.map((p) => [p.code, p.plugins])).toEqual([
      ["KEEL_ERR_COMPOSE_CYCLE", ["x", "y"]],
      ["KEEL_ERR_COMPOSE_RACE", ["u", "v"]],
    ]);
  });

  it("tells to use loadStack for an unloaded module entry", () => {
    const [problem] = problemsOf({ name: "s", plugins: [{ module: "./mine.js" }] });
    expect(problem!.code).toBe("KEEL_ERR_COMPOSE_UNKNOWN_PLUGIN");
    expect(problem!.message).toContain("loadStack");
    expect(problem!.message).toContain("`./mine.js`");
  });

  it("checks the kernel range against options.kernelVersion, prereleases included", () => {
    const plugins = [pluginFrom({ name: "new", kernel: ">=2.0.0" })];
    expect(problemsOf({ name: "s", plugins: ["new"] }, { plugins, kernelVersion: "1.9.9" })[0]).toMatchObject({
      code: "KEEL_ERR_COMPOSE_KERNEL_RANGE",
      plugins: ["new"],
    });
    expect(compose({ name: "s", plugins: ["new"] }, { plugins, kernelVersion: "2.1.0" }).order).toEqual(["new"]);
    expect(compose({ name: "s", plugins: ["new"] }, { plugins, kernelVersion: "2.1.0-rc.1" }).order).toEqual(["new"]);
  });

  it("leaves plugins with an invalid manifest out of later steps but runs those steps on the rest", () => {
    const plugins = [
      pluginFrom({ name: "bad", version: "1.0", hooks: { afterModel: { mutates: ["messages"] } } }),
      pluginFrom({ name: "w1", requiresBefore: ["bad"], hooks: { afterModel: { mutates: ["messages"] } } }),
      pluginFrom({ name: "w2", hooks: { afterModel: { mutates: ["messages"] } } }),
    ];
    const problems = problemsOf({ name: "s", plugins: ["bad", "w1", "w2"] }, { plugins });
    expect(problems.map((p) => [p.code, p.plugins])).toEqual([
      ["KEEL_ERR_MANIFEST_INVALID", ["bad"]],
      ["KEEL_ERR_COMPOSE_RACE", ["w1", "w2"]],
    ]);
  });
});

describe("race check", () => {
  const writer = (name: string, hook: string, channel: string, extra = {}) => pluginFrom({ name, hooks: { [hook]: { mutates: [channel] } }, ...extra });
  const reader = (name: string, hook: string, channel: string, extra = {}) => pluginFrom({ name, hooks: { [hook]: { observes: [channel] } }, ...extra });

  it("accepts conflicting pairs ordered through the transitive closure, in either direction", () => {
    const plugins = [
      writer("a", "afterModel", "messages"),
      pluginFrom({ name: "b", requiresBefore: ["a"] }),
      writer("c", "afterModel", "messages", { requiresBefore: ["b"] }),
    ];
    expect(compose({ name: "s", plugins: ["c", "b", "a"] }, { plugins }).order).toEqual(["a", "b", "c"]);
    const reversed = [writer("a", "afterModel", "messages"), pluginFrom({ name: "b" }), writer("c", "afterModel", "messages")];
    expect(compose({ name: "s", plugins: ["a", "b", "c"], order: [["c", "b"], ["b", "a"]] }, { plugins: reversed }).order).toEqual(["c", "b", "a"]);
  });

  it("lets commutative writes (append-set, sum) run unordered, but not a read against a write", () => {
    const plugins = [
      writer("g1", "afterModel", "stopReasons"),
      writer("g2", "afterModel", "stopReasons"),
      writer("u1", "afterModel", "usage"),
      writer("u2", "afterModel", "usage"),
      reader("watcher", "beforeModel", "stopReasons"),
    ];
    expect(compose({ name: "s", plugins: ["g1", "g2", "u1", "u2", "watcher"] }, { plugins }).order).toHaveLength(5);
    const withReader = [...plugins, reader("peeker", "afterModel", "stopReasons")];
    const problems = problemsOf({ name: "s", plugins: ["g1", "g2", "peeker"] }, { plugins: withReader });
    expect(problems.map((p) => [p.plugins, p.hook, p.channel])).toEqual([
      [["g1", "peeker"], "afterModel", "stopReasons"],
      [["g2", "peeker"], "afterModel", "stopReasons"],
    ]);
    expect(problems[0]!.message).toContain("`g1` mutates and `peeker` observes `stopReasons`");
  });

  it("treats a plugin-declared append-set or sum reducer as commutative too", () => {
    const owner = pluginFrom({
      name: "owner",
      channels: { tags: { schema: {}, reducer: { kind: "append-set", key: ["id"] } }, hits: { schema: {}, reducer: "sum" }, log: { schema: {}, reducer: "append" } },
    });
    const plugins = [owner, pluginFrom({ name: "a", hooks: { beforeModel: { mutates: ["tags", "hits", "log"] } } }), pluginFrom({ name: "b", hooks: { beforeModel: { mutates: ["tags", "hits", "log"] } } })];
    const problems = problemsOf({ name: "s", plugins: ["owner", "a", "b"] }, { plugins });
    expect(problems.map((p) => p.channel)).toEqual(["log"]);
  });

  it("only compares accesses within the same hook", () => {
    const plugins = [writer("a", "beforeModel", "messages"), writer("b", "afterModel", "messages"), reader("c", "wrapModelCall", "messages")];
    expect(compose({ name: "s", plugins: ["a", "b", "c"] }, { plugins }).order).toEqual(["a", "b", "c"]);
  });

  it("reports each (pair, hook, channel) once, even when both read and write", () => {
    const both = (name: string) => pluginFrom({ name, observes: ["messages"], mutates: ["messages"], hooks: { beforeModel: {}, afterModel: {} } });
    const problems = problemsOf({ name: "s", plugins: ["a", "b"] }, { plugins: [both("a"), both("b")] });
    expect(problems.map((p) => [p.plugins, p.hook, p.channel, p.message.includes("both mutate")])).toEqual([
      [["a", "b"], "beforeModel", "messages", true],
      [["a", "b"], "afterModel", "messages", true],
    ]);
  });

  it("names the plugins in listing order and the writer first in the message", () => {
    const plugins = [reader("first", "afterAgent", "messages"), writer("second", "afterAgent", "messages")];
    const [problem] = problemsOf({ name: "s", plugins: ["first", "second"] }, { plugins });
    expect(problem).toMatchObject({ plugins: ["first", "second"], hook: "afterAgent", channel: "messages", fix: expect.stringContaining(`add ["first","second"] or ["second","first"] to the stack's order, or order them in the manifest you control: \`"requiresBefore": ["first"]\` in \`second\``) });
    expect(problem!.message).toMatch(/^`second` mutates and `first` observes `messages` in afterAgent with no order between them/);
  });
});
