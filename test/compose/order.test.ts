import { describe, expect, it } from "vitest";
import { compose } from "../../kernel/compose/compose.js";
import { pluginFrom } from "./plugin-factory.js";

describe("composed order", () => {
  it("keeps the listing order when nothing constrains it", () => {
    const plugins = ["zeta", "alpha", "mid"].map((name) => pluginFrom({ name }));
    expect(compose({ name: "s", plugins: ["zeta", "alpha", "mid"] }, { plugins }).order).toEqual(["zeta", "alpha", "mid"]);
    expect(compose({ name: "s", plugins: ["mid", "zeta", "alpha"] }, { plugins }).order).toEqual(["mid", "zeta", "alpha"]);
  });

  it("is a stable Kahn sort: among ready plugins, the one listed first goes next", () => {
    // c needs a; b is free. Kahn places b (listed before a), then a, then c.
    const plugins = [pluginFrom({ name: "c", requiresBefore: ["a"] }), pluginFrom({ name: "b" }), pluginFrom({ name: "a" })];
    expect(compose({ name: "s", plugins: ["c", "b", "a"] }, { plugins }).order).toEqual(["b", "a", "c"]);
    // A plugin that becomes ready late still goes before later-listed ready ones.
    const more = [
      pluginFrom({ name: "p1", requiresBefore: ["p4"] }),
      pluginFrom({ name: "p2" }),
      pluginFrom({ name: "p3" }),
      pluginFrom({ name: "p4" }),
      pluginFrom({ name: "p5" }),
    ];
    expect(compose({ name: "s", plugins: ["p1", "p2", "p3", "p4", "p5"] }, { plugins: more }).order).toEqual(["p2", "p3", "p4", "p1", "p5"]);
  });

  it("applies optional requiresBefore only when the other plugin is present, and stack order pairs", () => {
    const plugins = [
      pluginFrom({ name: "finish-reason", requiresBefore: [{ name: "loop-detection", optional: true }] }),
      pluginFrom({ name: "loop-detection" }),
      pluginFrom({ name: "token-budget" }),
    ];
    const full = compose({ name: "s", plugins: ["finish-reason", "loop-detection", "token-budget"], order: [["token-budget", "loop-detection"]] }, { plugins });
    expect(full.order).toEqual(["token-budget", "loop-detection", "finish-reason"]);
    expect(full.edges).toEqual([
      { before: "loop-detection", after: "finish-reason", reason: "`finish-reason` requiresBefore `loop-detection` (optional)" },
      { before: "token-budget", after: "loop-detection", reason: 'stack order ["token-budget","loop-detection"]' },
    ]);
    const without = compose({ name: "s", plugins: ["finish-reason", "token-budget"] }, { plugins });
    expect(without.order).toEqual(["finish-reason", "token-budget"]);
    expect(without.edges).toEqual([]);
  });

  it("includes service plugins in the order", () => {
    const plugins = [
      pluginFrom({ name: "acceptance", requiresBefore: ["workspace"], requires: ["workspace"], hooks: { afterAgent: {} } }),
      pluginFrom({ name: "workspace", kind: "service", provides: ["workspace"] }),
    ];
    const composition = compose({ name: "s", plugins: ["acceptance", "workspace"] }, { plugins });
    expect(composition.order).toEqual(["workspace", "acceptance"]);
    expect(composition.hooks.afterAgent).toEqual(["acceptance"]);
  });

  it("accepts names, {name, config}, plugin instances and {plugin, config}, with options.plugins as a list or a record", () => {
    const schema = { type: "object", properties: { n: { type: "integer", default: 0 } }, additionalProperties: false };
    const named = pluginFrom({ name: "named", config: schema });
    const configured = pluginFrom({ name: "configured", config: schema });
    const instance = pluginFrom({ name: "instance" });
    const wrapped = pluginFrom({ name: "wrapped", config: schema });
    const stack = { name: "s", plugins: ["named", { name: "configured", config: { n: 2 } }, instance, { plugin: wrapped, config: { n: 3 } }] };
    for (const options of [{ plugins: [named, configured] }, { plugins: { named, configured } }]) {
      const composition = compose(stack, options);
      expect(composition.order).toEqual(["named", "configured", "instance", "wrapped"]);
      expect(composition.plugins.get("named")!.config).toEqual({ n: 0 });
      expect(composition.plugins.get("configured")!.config).toEqual({ n: 2 });
      expect(composition.plugins.get("wrapped")!.config).toEqual({ n: 3 });
      expect(composition.plugins.get("instance")!.plugin).toBe(instance);
    }
  });
});

describe("explain() and hook chains", () => {
  const all = { beforeAgent: {}, beforeModel: {}, wrapModelCall: {}, afterModel: {}, wrapToolCall: {}, afterAgent: {} };
  const plugins = [
    pluginFrom({ name: "outer", hooks: all }),
    pluginFrom({ name: "middle", requiresBefore: ["outer"], hooks: { beforeModel: {}, afterModel: {}, wrapModelCall: {} } }),
    pluginFrom({ name: "inner", requiresBefore: ["middle"], hooks: all }),
    pluginFrom({ name: "svc", kind: "service", provides: ["store"] }),
  ];
  const composition = compose({ name: "chains", plugins: ["inner", "svc", "middle", "outer"] }, { plugins });

  it("runs before* in composed order, after* reversed, wrap* outermost first, every hook present", () => {
    expect(composition.order).toEqual(["svc", "outer", "middle", "inner"]);
    expect(composition.explain().hooks).toEqual({
      beforeAgent: ["outer", "inner"],
      beforeModel: ["outer", "middle", "inner"],
      wrapModelCall: ["outer", "middle", "inner"],
      afterModel: ["inner", "middle", "outer"],
      wrapToolCall: ["outer", "inner"],
      afterAgent: ["inner", "outer"],
    });
    expect(composition.hooks).toEqual(composition.explain().hooks);
  });

  it("has `[]` for hooks no plugin implements", () => {
    const only = compose({ name: "s", plugins: [pluginFrom({ name: "one", hooks: { beforeModel: {} } })] });
    expect(only.hooks).toEqual({ beforeAgent: [], beforeModel: ["one"], wrapModelCall: [], afterModel: [], wrapToolCall: [], afterAgent: [] });
  });

  it("returns the order, the edges with their reasons and the access table; copies the caller may change", () => {
    const explanation = composition.explain();
    expect(explanation.order).toEqual(["svc", "outer", "middle", "inner"]);
    expect(explanation.edges).toEqual([
      { before: "middle", after: "inner", reason: "`inner` requiresBefore `middle`" },
      { before: "outer", after: "middle", reason: "`middle` requiresBefore `outer`" },
    ]);
    expect(explanation.channels).toEqual([]);
    explanation.order.push("intruder");
    explanation.hooks.afterModel.length = 0;
    expect(composition.explain().order).toEqual(["svc", "outer", "middle", "inner"]);
    expect(composition.explain().hooks.afterModel).toEqual(["inner", "middle", "outer"]);
  });
});

describe("channels and the access table", () => {
  const plugins = [
    pluginFrom({
      name: "owner",
      channels: {
        tally: { schema: { type: "number" }, reducer: "sum" },
        ledger: { schema: { type: "array" }, reducer: { kind: "merge-by-id", key: "id" } },
      },
      observes: ["messages", { name: "delegations", optional: true }, { name: "ledger", optional: true }],
      mutates: ["ledger"],
      hooks: { beforeModel: {}, afterModel: { mutates: ["tally"] } },
    }),
  ];
  const composition = compose({ name: "s", plugins: ["owner"] }, { plugins });

  it("lists kernel channels (owner kernel, readOnly where set) and plugin channels, with commutative computed", () => {
    const ch = composition.channels;
    expect(ch.get("messages")).toMatchObject({ owner: "kernel", reducer: "messages", commutative: false });
    expect(ch.get("stopReasons")).toMatchObject({ owner: "kernel", commutative: true });
    expect(ch.get("usage")).toMatchObject({ owner: "kernel", reducer: "sum", commutative: true });
    expect(ch.get("runMeta")).toMatchObject({ owner: "kernel", readOnly: true, commutative: false });
    expect(ch.get("model.request")).toMatchObject({ owner: "kernel" });
    expect(ch.get("tally")).toMatchObject({ owner: "owner", reducer: "sum", commutative: true, schema: { type: "number" } });
    expect(ch.get("ledger")).toMatchObject({ owner: "owner", commutative: false });
    expect(ch.has("delegations")).toBe(false);
  });

  it("applies plugin-level accesses to every hook, overridden per hook and per list; absent optional channels are dropped", () => {
    expect(composition.access).toEqual([
      { plugin: "owner", hook: "beforeModel", channel: "messages", mode: "read", optional: false },
      { plugin: "owner", hook: "beforeModel", channel: "ledger", mode: "read", optional: true },
      { plugin: "owner", hook: "beforeModel", channel: "ledger", mode: "write", optional: false },
      { plugin: "owner", hook: "afterModel", channel: "messages", mode: "read", optional: false },
      { plugin: "owner", hook: "afterModel", channel: "ledger", mode: "read", optional: true },
      { plugin: "owner", hook: "afterModel", channel: "tally", mode: "write", optional: false },
    ]);
    expect(composition.explain().channels).toEqual(composition.access);
  });
});
