import { describe, expect, it } from "vitest";
import { compose } from "../../kernel/compose/compose.js";
import { KeelError } from "../../kernel/errors.js";
import { pluginFrom } from "./plugin-factory.js";

const plugins = [
  pluginFrom({
    name: "first",
    config: { type: "object", properties: { nested: { type: "object", default: { deep: [1, 2] } } } },
    channels: { notes: { schema: { type: "array", items: { type: "string" } }, reducer: "append" } },
    hooks: { beforeModel: { mutates: ["notes"] } },
  }),
  pluginFrom({ name: "second", requiresBefore: ["first"], hooks: { afterModel: { observes: ["notes"] } } }),
];
const composition = compose({ name: "s", plugins: ["second", "first"] }, { plugins });

function frozenCode(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return error instanceof KeelError ? error.code : `not a KeelError: ${String(error)}`;
  }
  return undefined;
}

describe("a composition is frozen", () => {
  it("freezes the object, its arrays, chains, edges and access rows", () => {
    expect(Object.isFrozen(composition)).toBe(true);
    expect(Object.isFrozen(composition.order)).toBe(true);
    expect(Object.isFrozen(composition.hooks)).toBe(true);
    expect(Object.isFrozen(composition.hooks.afterModel)).toBe(true);
    expect(Object.isFrozen(composition.edges)).toBe(true);
    expect(Object.isFrozen(composition.edges[0])).toBe(true);
    expect(Object.isFrozen(composition.access)).toBe(true);
    expect(Object.isFrozen(composition.access[0])).toBe(true);
    expect(() => (composition.order as string[]).push("x")).toThrow(TypeError);
    expect(() => {
      (composition as { stackName: string }).stackName = "other";
    }).toThrow(TypeError);
  });

  it("freezes each plugin's resolved config, deeply", () => {
    const resolved = composition.plugins.get("first")!;
    expect(resolved.config).toEqual({ nested: { deep: [1, 2] } });
    expect(Object.isFrozen(resolved)).toBe(true);
    expect(Object.isFrozen(resolved.config)).toBe(true);
    expect(Object.isFrozen((resolved.config.nested as { deep: number[] }).deep)).toBe(true);
  });

  it("freezes channel declarations", () => {
    const notes = composition.channels.get("notes")!;
    expect(Object.isFrozen(notes)).toBe(true);
    expect(Object.isFrozen(notes.schema)).toBe(true);
    // The plugin's own manifest object is not frozen behind its back.
    expect(Object.isFrozen(plugins[0]!.manifest.channels!.notes!.schema)).toBe(false);
  });

  it("throws KEEL_ERR_COMPOSITION_FROZEN from the maps' mutators", () => {
    const pluginsMap = composition.plugins as Map<string, unknown>;
    const channelsMap = composition.channels as Map<string, unknown>;
    expect(frozenCode(() => pluginsMap.set("x", {}))).toBe("KEEL_ERR_COMPOSITION_FROZEN");
    expect(frozenCode(() => pluginsMap.delete("first"))).toBe("KEEL_ERR_COMPOSITION_FROZEN");
    expect(frozenCode(() => channelsMap.clear())).toBe("KEEL_ERR_COMPOSITION_FROZEN");
    expect(frozenCode(() => channelsMap.set("messages", {}))).toBe("KEEL_ERR_COMPOSITION_FROZEN");
    expect([...composition.plugins.keys()]).toEqual(["first", "second"]);
    expect(composition.channels.has("messages")).toBe(true);
  });
});
