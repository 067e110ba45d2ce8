import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AssistantRecord, AssistantStore } from "../../kernel/assistants/types.js";

const at = (minute: number) => `2026-01-01T00:${String(minute).padStart(2, "0")}:00.000Z`;

export function assistant(id: string, fields: Partial<AssistantRecord> = {}): AssistantRecord {
  return {
    assistantId: id,
    graphId: "lead",
    name: id,
    description: null,
    config: {},
    context: {},
    metadata: {},
    version: 1,
    owner: "alice",
    createdAt: at(0),
    updatedAt: at(0),
    ...fields,
  };
}

/** The AssistantStore contract, run against every implementation. */
export function describeAssistantStoreConformance(label: string, open: () => Promise<AssistantStore>, options: { reopen?: () => Promise<AssistantStore> } = {}): void {
  describe(`AssistantStore conformance: ${label}`, () => {
    let store: AssistantStore;
    beforeAll(async () => {
      store = await open();
      await store.init();
    });
    afterAll(async () => store?.close());

    it("creates version 1, reads it back as JSON, refuses an existing id with KEEL_ERR_STORE_CONFLICT", async () => {
      const record = assistant("c1", { context: { plugins: { receipts: { render: "always" } }, maxTurns: 3 }, config: { tags: ["x"] }, metadata: { nested: { a: [1, 2] } }, description: "d", version: 7 });
      const created = await store.createAssistant(record);
      expect(created).toEqual({ ...record, version: 1 });
      expect(await store.getAssistant("c1")).toEqual({ ...record, version: 1 });
      await expect(store.createAssistant(assistant("c1", { owner: "bob" }))).rejects.toMatchObject({ code: "KEEL_ERR_STORE_CONFLICT" });
      expect(await store.getAssistant("missing")).toBeNull();
    });

    it("updates write the next version, merge metadata, keep absent fields; setLatest restores a version; versions list newest first", async () => {
      await store.createAssistant(assistant("u1", { name: "one", metadata: { keep: 1, change: "a" }, context: { maxTurns: 2 } }));
      const two = await store.updateAssistant("u1", { name: "two", metadata: { change: "b" } }, at(1));
      expect(two).toMatchObject({ version: 2, name: "two", metadata: { keep: 1, change: "b" }, context: { maxTurns: 2 }, createdAt: at(0), updatedAt: at(1) });
      const three = await store.updateAssistant("u1", { graphId: "subagent", context: { plugins: {} }, description: "now" }, at(2));
      expect(three).toMatchObject({ version: 3, graphId: "subagent", name: "two", context: { plugins: {} }, description: "now" });
      expect((await store.listVersions("u1", { limit: 10, offset: 0 })).map((v) => [v.version, v.name, v.graphId, v.createdAt])).toEqual([
        [3, "two", "subagent", at(2)],
        [2, "two", "lead", at(1)],
        [1, "one", "lead", at(0)],
      ]);
      expect((await store.listVersions("u1", { metadata: { change: "a" }, limit: 10, offset: 0 })).map((v) => v.version)).toEqual([1]);
      expect((await store.listVersions("u1", { limit: 1, offset: 1 })).map((v) => v.version)).toEqual([2]);
      const back = await store.setLatestVersion("u1", 1, at(3));
      expect(back).toMatchObject({ version: 1, name: "one", graphId: "lead", description: null, metadata: { keep: 1, change: "a" }, context: { maxTurns: 2 }, createdAt: at(0), updatedAt: at(3), owner: "alice" });
      expect(await store.getAssistant("u1")).toEqual(back);
      expect((await store.updateAssistant("u1", { name: "four" }, at(4)))?.version).toBe(4);
      expect(await store.setLatestVersion("u1", 99, at(5))).toBeNull();
      expect(await store.updateAssistant("missing", { name: "x" }, at(5))).toBeNull();
      expect(await store.setLatestVersion("missing", 1, at(5))).toBeNull();
    });

    it("concurrent updates each get their own version number", async () => {
      await store.createAssistant(assistant("race"));
      const updated = await Promise.all([1, 2, 3, 4].map((i) => store.updateAssistant("race", { metadata: { [`k${i}`]: i } }, at(10 + i))));
      expect(updated.map((a) => a!.version).sort()).toEqual([2, 3, 4, 5]);
      expect((await store.listVersions("race", { limit: 10, offset: 0 })).map((v) => v.version)).toEqual([5, 4, 3, 2, 1]);
    });

    it("deletes an assistant with its versions", async () => {
      await store.createAssistant(assistant("d1"));
      await store.updateAssistant("d1", { name: "d1b" }, at(1));
      expect(await store.deleteAssistant("d1")).toBe(true);
      expect(await store.getAssistant("d1")).toBeNull();
      expect(await store.listVersions("d1", { limit: 10, offset: 0 })).toEqual([]);
      expect(await store.deleteAssistant("d1")).toBe(false);
      // The id is free again, from version 1.
      expect((await store.createAssistant(assistant("d1"))).version).toBe(1);
      expect((await store.listVersions("d1", { limit: 10, offset: 0 })).map((v) => v.version)).toEqual([1]);
    });

    it("searches one owner's assistants by graph, name substring (case-insensitive, % and _ literal) and metadata; sorts, pages and counts", async () => {
      const owner = "searcher";
      await store.createAssistant(assistant("s-b", { owner, name: "Beta 50%", graphId: "subagent", metadata: { tier: "gold", n: 1 }, createdAt: at(20), updatedAt: at(29) }));
      await store.createAssistant(assistant("s-a", { owner, name: "alpha_one", metadata: { tier: "gold", n: 2 }, createdAt: at(21), updatedAt: at(22) }));
      await store.createAssistant(assistant("s-c", { owner, name: "Gamma", metadata: { tier: "silver", n: 1 }, createdAt: at(22), updatedAt: at(23) }));
      await store.createAssistant(assistant("s-x", { owner: "other", name: "alpha other", metadata: { tier: "gold" } }));
      const ids = async (search: Partial<Parameters<AssistantStore["searchAssistants"]>[0]>) =>
        (await store.searchAssistants({ owner, sortBy: "created_at", sortOrder: "desc", limit: 10, offset: 0, ...search })).map((a) => a.assistantId);
      expect(await ids({})).toEqual(["s-c", "s-a", "s-b"]);
      expect(await ids({ sortOrder: "asc" })).toEqual(["s-b", "s-a", "s-c"]);
      expect(await ids({ sortBy: "name", sortOrder: "asc" })).toEqual(["s-b", "s-c", "s-a"]);
      expect(await ids({ sortBy: "updated_at", sortOrder: "desc" })).toEqual(["s-b", "s-c", "s-a"]);
      expect(await ids({ sortBy: "assistant_id", sortOrder: "asc", limit: 2, offset: 1 })).toEqual(["s-b", "s-c"]);
      expect(await ids({ sortBy: "graph_id", sortOrder: "desc" })).toEqual(["s-b", "s-c", "s-a"]);
      expect(await ids({ graphId: "lead" })).toEqual(["s-c", "s-a"]);
      expect(await ids({ name: "ALPHA" })).toEqual(["s-a"]);
      expect(await ids({ name: "a_o" })).toEqual(["s-a"]);
      expect(await ids({ name: "a%o" })).toEqual([]);
      expect(await ids({ name: "50%" })).toEqual(["s-b"]);
      expect(await ids({ metadata: { tier: "gold" } })).toEqual(["s-a", "s-b"]);
      expect(await ids({ metadata: { tier: "gold", n: 1 } })).toEqual(["s-b"]);
      expect(await store.countAssistants({ owner })).toBe(3);
      expect(await store.countAssistants({ owner, metadata: { tier: "gold" }, graphId: "lead" })).toBe(1);
      expect(await store.countAssistants({ owner, name: "a" })).toBe(3);
      expect(await store.countAssistants({ owner: "nobody" })).toBe(0);
    });

    if (options.reopen) {
      it("persists across a reopen", async () => {
        await store.createAssistant(assistant("kept", { context: { model: "demo" } }));
        await store.updateAssistant("kept", { name: "kept v2" }, at(1));
        const again = await options.reopen!();
        try {
          expect(await again.getAssistant("kept")).toMatchObject({ version: 2, name: "kept v2", context: { model: "demo" } });
          expect((await again.listVersions("kept", { limit: 10, offset: 0 })).map((v) => v.version)).toEqual([2, 1]);
        } finally {
          await again.close();
        }
      });
    }
  });
}
