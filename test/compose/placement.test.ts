import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { HOOK_NAMES } from "../../contracts/shared.js";
import { compose } from "../../kernel/compose/compose.js";
import type { ComposeOptions, StackInput } from "../../kernel/compose/types.js";
import { CompositionError, type CompositionProblem } from "../../kernel/errors.js";
import { pluginFrom } from "./plugin-factory.js";

function problemsOf(stack: StackInput, options?: ComposeOptions): readonly CompositionProblem[] {
  try {
    compose(stack, options);
  } catch (error) {
    expect(error).toBeInstanceOf(CompositionError);
    return (error as CompositionError).problems;
  }
  throw new Error("expected compose to throw");
}

const owner = pluginFrom({ name: "owner", channels: { notes: { schema: { type: "array" }, reducer: "append" } } });
/** Three plugins that write `notes` in the given hook, ordered among themselves by requiresBefore. */
function chainOf(hook: "beforeModel" | "wrapToolCall" | "afterModel") {
  return [
    pluginFrom({ name: "one", hooks: { [hook]: { mutates: ["notes"] } } }),
    pluginFrom({ name: "two", requiresBefore: ["one"], hooks: { [hook]: { mutates: ["notes"] } } }),
    pluginFrom({ name: "three", requiresBefore: ["two"], hooks: { [hook]: { mutates: ["notes"] } } }),
    pluginFrom({ name: "bystander", hooks: { afterAgent: {} } }),
  ];
}

describe("hook placements (hooks.<hook>.order)", () => {
  it('"post" on a wrap hook is innermost: after every other plugin with that hook, whatever the listing', () => {
    const late = pluginFrom({ name: "late", hooks: { wrapToolCall: { mutates: ["notes"], order: "post" } } });
    const plugins = [owner, late, ...chainOf("wrapToolCall")];
    const composition = compose({ name: "s", plugins: ["owner", "late", "one", "two", "three", "bystander"] }, { plugins });
    expect(composition.hooks.wrapToolCall).toEqual(["one", "two", "three", "late"]);
    // Only plugins that have the hook are ordered by it: the bystander keeps its listing place after `late`'s peers.
    expect(composition.order).toEqual(["owner", "one", "two", "three", "late", "bystander"]);
    expect(composition.explain().edges).toContainEqual({ before: "three", after: "late", reason: '`late` hooks.wrapToolCall.order "post"' });
    expect(composition.explain().edges.some((e) => e.after === "late" && e.before === "bystander")).toBe(false);
  });

  it('"pre" on a before hook runs first; "pre" on an after hook runs first in the (reversed) chain', () => {
    const early = pluginFrom({ name: "early", hooks: { beforeModel: { mutates: ["notes"], order: "pre" } } });
    const before = compose({ name: "s", plugins: ["owner", "one", "two", "three", "early"] }, { plugins: [owner, early, ...chainOf("beforeModel")] });
    expect(before.hooks.beforeModel).toEqual(["early", "one", "two", "three"]);

    const first = pluginFrom({ name: "first", hooks: { afterModel: { mutates: ["notes"], order: "pre" } } });
    const after = compose({ name: "s", plugins: ["owner", "first", "one", "two", "three"] }, { plugins: [owner, first, ...chainOf("afterModel")] });
    expect(after.hooks.afterModel).toEqual(["first", "three", "two", "one"]);
    expect(after.order).toEqual(["owner", "one", "two", "three", "first"]);
  });

  it("placements are edges the race check counts: without one, the same writer races with every peer", () => {
    const sketch = (order?: "post") => pluginFrom({ name: "late", hooks: { wrapToolCall: { mutates: ["notes"], ...(order ? { order } : {}) } } });
    const stack: StackInput = { name: "s", plugins: ["owner", "one", "two", "three", "late"] };
    // Listed last, `late` would come last by the tie-break alone: still a race, since tie-breaks are no order.
    const races = problemsOf(stack, { plugins: [owner, sketch(), ...chainOf("wrapToolCall")] });
    expect(races.map((p) => [p.code, ...p.plugins])).toEqual([
      ["KEEL_ERR_COMPOSE_RACE", "one", "late"],
      ["KEEL_ERR_COMPOSE_RACE", "two", "late"],
      ["KEEL_ERR_COMPOSE_RACE", "three", "late"],
    ]);
    expect(compose(stack, { plugins: [owner, sketch("post"), ...chainOf("wrapToolCall")] }).hooks.wrapToolCall).toEqual(["one", "two", "three", "late"]);
  });

  it("two plugins with the same placement are not ordered by it: their race is reported, and its fix names the manifest", () => {
    const a = pluginFrom({ name: "a", hooks: { wrapToolCall: { mutates: ["notes"], order: "post" } } });
    const b = pluginFrom({ name: "b", hooks: { wrapToolCall: { mutates: ["notes"], order: "post" } } });
    const problems = problemsOf({ name: "s", plugins: ["owner", "a", "b"] }, { plugins: [owner, a, b] });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ code: "KEEL_ERR_COMPOSE_RACE", plugins: ["a", "b"], hook: "wrapToolCall", channel: "notes" });
    expect(problems[0]!.fix).toBe(
      'add ["a","b"] or ["b","a"] to the stack\'s order, or order them in the manifest you control: `"requiresBefore": ["a"]` in `b` or `"requiresBefore": ["b"]` in `a`, ' +
        'or place the hook with `hooks.wrapToolCall.order`: "pre" (runs first in wrapToolCall) or "post" (runs last)',
    );
  });

  it("a placement that contradicts a requiresBefore is a compose error naming both plugins and both declarations", () => {
    const early = pluginFrom({ name: "early", requiresBefore: ["one"], hooks: { beforeModel: { order: "pre" } } });
    const problems = problemsOf({ name: "s", plugins: ["one", "early"] }, { plugins: [early, pluginFrom({ name: "one", hooks: { beforeModel: {} } })] });
    expect(problems).toEqual([
      {
        code: "KEEL_ERR_COMPOSE_PLACEMENT_CONFLICT",
        message:
          '`early` hooks.beforeModel.order "pre" would run `early` before `one` in beforeModel, but `early` requiresBefore `one` orders `one` before `early`; drop the placement or the contradicting declaration',
        plugins: ["early", "one"],
        hook: "beforeModel",
        fix: "remove `hooks.beforeModel.order` from `early`'s manifest, or remove the declaration that orders `one` before `early`",
      },
    ]);
  });

  it("a placement that contradicts the stack's order is the same error, naming the pair", () => {
    const late = pluginFrom({ name: "late", hooks: { afterAgent: { order: "post" } } });
    const other = pluginFrom({ name: "other", hooks: { afterAgent: {} } });
    // afterAgent runs reversed: "post" (last in the chain) is first in the composed order; the stack says otherwise.
    const problems = problemsOf({ name: "s", plugins: ["late", "other"], order: [["other", "late"]] }, { plugins: [late, other] });
    expect(problems.map((p) => p.code)).toEqual(["KEEL_ERR_COMPOSE_PLACEMENT_CONFLICT"]);
    expect(problems[0]!.plugins).toEqual(["late", "other"]);
    expect(problems[0]!.message).toContain('stack order ["other","late"]');
  });

  it("placements on different hooks that pull two plugins both ways are a cycle naming each placement", () => {
    const x = pluginFrom({ name: "x", hooks: { beforeModel: { order: "pre" }, afterAgent: {} } });
    const y = pluginFrom({ name: "y", hooks: { beforeModel: {}, afterAgent: { order: "post" } } });
    // x first in beforeModel (x → y); y last in the reversed afterAgent chain, i.e. first in the order (y → x).
    const problems = problemsOf({ name: "s", plugins: ["x", "y"] }, { plugins: [x, y] });
    expect(problems.map((p) => p.code)).toEqual(["KEEL_ERR_COMPOSE_CYCLE"]);
    expect(problems[0]!.message).toContain('`x` hooks.beforeModel.order "pre"');
    expect(problems[0]!.message).toContain('`y` hooks.afterAgent.order "post"');
  });

  it("compose refuses a stack whose `extends` was not resolved by loadStack", () => {
    const problems = problemsOf({ name: "child", extends: "lead", plugins: [] } as StackInput, { plugins: [] });
    expect(problems).toEqual([expect.objectContaining({ code: "KEEL_ERR_STACK_INVALID", pointer: "/extends" })]);
  });

  it("property: in every composition that composes, each hook chain runs its pre plugins first and its post plugins last", () => {
    const placement = fc.constantFrom(undefined, "pre", "post");
    const sketch = fc.record({
      hooks: fc.dictionary(fc.constantFrom(...HOOK_NAMES), placement, { maxKeys: 3 }),
      before: fc.subarray([0, 1, 2, 3, 4, 5, 6, 7], { maxLength: 2 }),
    });
    fc.assert(
      fc.property(fc.array(sketch, { minLength: 2, maxLength: 8 }), (sketches) => {
        const names = sketches.map((_, i) => `p${i}`);
        const plugins = sketches.map((s, i) =>
          pluginFrom({
            name: names[i]!,
            hooks: Object.fromEntries(Object.entries(s.hooks).map(([h, o]) => [h, o === undefined ? {} : { order: o }])),
            requiresBefore: s.before.filter((j) => j < i).map((j) => ({ name: names[j]!, optional: true })),
          }),
        );
        let composition;
        try {
          composition = compose({ name: "s", plugins: names }, { plugins });
        } catch (error) {
          const codes = (error as CompositionError).problems.map((p) => p.code);
          expect(codes.every((c) => c === "KEEL_ERR_COMPOSE_PLACEMENT_CONFLICT" || c === "KEEL_ERR_COMPOSE_CYCLE")).toBe(true);
          return;
        }
        for (const hook of HOOK_NAMES) {
          const rank = composition.hooks[hook].map((n) => ({ pre: 0, post: 2 })[sketches[names.indexOf(n)]!.hooks[hook] as "pre" | "post"] ?? 1);
          expect(rank).toEqual([...rank].sort((a, b) => a - b));
        }
      }),
      { numRuns: 300 },
    );
  });
});
