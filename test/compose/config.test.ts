import { describe, expect, it } from "vitest";
import { compose } from "../../kernel/compose/compose.js";
import type { ComposeOptions, StackInput } from "../../kernel/compose/types.js";
import { CompositionError, type CompositionProblem } from "../../kernel/errors.js";
import { pluginFrom } from "./plugin-factory.js";

const schema = {
  type: "object",
  properties: {
    hardLimit: { type: "integer", minimum: 1, default: 5 },
    warnAt: { type: "integer", default: 3 },
    tools: { type: "array", items: { type: "string" }, default: ["bash", "read_file"] },
    window: {
      type: "object",
      properties: { size: { type: "integer", default: 20 }, unit: { type: "string", default: "messages" } },
      default: { size: 20 },
    },
  },
  additionalProperties: false,
};
const loop = pluginFrom({ name: "loop-detection", config: schema });
const bare = pluginFrom({ name: "bare" });

function problemsOf(stack: StackInput, options: ComposeOptions): readonly CompositionProblem[] {
  try {
    compose(stack, options);
  } catch (error) {
    if (error instanceof CompositionError) return error.problems;
    throw error;
  }
  throw new Error("expected a CompositionError");
}

describe("config", () => {
  it("applies the schema defaults, nested ones included", () => {
    const composition = compose({ name: "s", plugins: ["loop-detection", "bare"] }, { plugins: [loop, bare] });
    expect(composition.plugins.get("loop-detection")!.config).toEqual({
      hardLimit: 5,
      warnAt: 3,
      tools: ["bash", "read_file"],
      window: { size: 20, unit: "messages" },
    });
    expect(composition.plugins.get("bare")!.config).toEqual({});
  });

  it("merges defaults → stack entry → each options.config layer, later wins; objects deep, arrays replaced", () => {
    const stack: StackInput = { name: "s", plugins: [{ name: "loop-detection", config: { hardLimit: 8, warnAt: 4, window: { unit: "turns" } } }] };
    const composition = compose(stack, {
      plugins: [loop],
      config: [{ "loop-detection": { warnAt: 6, tools: ["ls"] } }, { "loop-detection": { window: { size: 7 } } }],
    });
    expect(composition.plugins.get("loop-detection")!.config).toEqual({
      hardLimit: 8,
      warnAt: 6,
      tools: ["ls"],
      window: { size: 7, unit: "turns" },
    });
  });

  it("does not change the caller's config objects", () => {
    const entryConfig = { window: { unit: "turns" } };
    const layer = { "loop-detection": { warnAt: 6 } };
    compose({ name: "s", plugins: [{ name: "loop-detection", config: entryConfig }] }, { plugins: [loop], config: [layer] });
    expect(entryConfig).toEqual({ window: { unit: "turns" } });
    expect(layer).toEqual({ "loop-detection": { warnAt: 6 } });
  });

  it("reports invalid options with the JSON pointer prefixed by the plugin", () => {
    const problems = problemsOf(
      { name: "s", plugins: [{ name: "loop-detection", config: { hardLimit: 0 } }] },
      { plugins: [loop], config: [{ "loop-detection": { window: { size: "big" } } }] },
    );
    expect(problems.map((p) => [p.code, p.pointer, p.plugins])).toEqual([
      ["KEEL_ERR_CONFIG_INVALID", "/loop-detection/hardLimit", ["loop-detection"]],
      ["KEEL_ERR_CONFIG_INVALID", "/loop-detection/window/size", ["loop-detection"]],
    ]);
    expect(problems[0]!.message).toContain("`/loop-detection/hardLimit`");
  });

  it("validates the merged result: a later layer can fix an earlier bad value", () => {
    const composition = compose(
      { name: "s", plugins: [{ name: "loop-detection", config: { hardLimit: 0 } }] },
      { plugins: [loop], config: [{ "loop-detection": { hardLimit: 2 } }] },
    );
    expect(composition.plugins.get("loop-detection")!.config.hardLimit).toBe(2);
  });

  it("accepts only {} for a plugin without a config schema", () => {
    const problems = problemsOf({ name: "s", plugins: ["bare"] }, { plugins: [bare], config: [{ bare: { verbose: true } }] });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ code: "KEEL_ERR_CONFIG_INVALID", pointer: "/bare/verbose", plugins: ["bare"] });
    expect(problems[0]!.message).toContain("unknown property `verbose`");
  });

  it("rejects options that are not an object", () => {
    const problems = problemsOf({ name: "s", plugins: ["loop-detection"] }, { plugins: [loop], config: [{ "loop-detection": [1, 2] as never }] });
    expect(problems.map((p) => [p.code, p.pointer])).toEqual([["KEEL_ERR_CONFIG_INVALID", "/loop-detection"]]);
  });

  it("reports config for a plugin that is not in the stack, per layer", () => {
    const problems = problemsOf({ name: "s", plugins: ["bare"] }, { plugins: [bare, loop], config: [{ "loop-detection": {} }, { ghost: {}, bare: {} }] });
    expect(problems.map((p) => [p.code, p.plugins, p.message.startsWith(`config layer ${p.plugins[0] === "ghost" ? 2 : 1}`)])).toEqual([
      ["KEEL_ERR_CONFIG_UNKNOWN_PLUGIN", ["loop-detection"], true],
      ["KEEL_ERR_CONFIG_UNKNOWN_PLUGIN", ["ghost"], true],
    ]);
  });
});
