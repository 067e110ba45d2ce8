/**
 * The store API's conformance suite: `client.store.*` of @langchain/langgraph-sdk against
 * a listening in-process gateway whose item store is the one under test (memory, SQLite,
 * PostgreSQL), with an injected clock for TTLs. Each backend's test file calls
 * `describeStoreApi` with a factory.
 */
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { ItemStore } from "../../../kernel/ports/item-store.js";
import { MemoryRunStore } from "../../../kernel/runs/memory-store.js";
import { MemoryStreamBridge } from "../../../kernel/runs/memory-bridge.js";
import { RunManager } from "../../../kernel/runs/run-manager.js";
import { ApiKeys, createGateway, type GatewayApp } from "../../../plugins/gateway/index.js";
import { ScriptedExecutor } from "./harness.js";

const T0 = Date.parse("2026-01-01T00:00:00.000Z");
const MINUTE = 60_000;

export interface StoreBackend {
  items: ItemStore;
  /** Rows the backend holds, expired or not (to see what a sweep removed). */
  rowCount(): Promise<number>;
  close(): Promise<void>;
}

/** The error body of a failed SDK call (the SDK raises `HTTP <status>: <body>`). */
export async function failure(call: Promise<unknown>): Promise<{ status: number; body: { error: string; message: string; pointer?: string } }> {
  try {
    await call;
  } catch (error) {
    const e = error as { status?: number; message: string };
    return { status: e.status ?? 0, body: JSON.parse(e.message.replace(/^HTTP \d+: /, "")) };
  }
  throw new Error("the call succeeded");
}

export function describeStoreApi(name: string, open: () => Promise<StoreBackend>): void {
  describe(`store API over the SDK (${name})`, () => {
    let backend: StoreBackend;
    let app: GatewayApp;
    let runs: RunManager;
    let clockMs = T0;
    let alice: Client;
    let bob: Client;
    let apiUrl: string;
    let run = 0;
    /** A namespace root of this test's own, so tests sharing the backend do not meet. */
    let root: string;

    beforeAll(async () => {
      backend = await open();
      const store = new MemoryRunStore();
      const bridge = new MemoryStreamBridge();
      runs = new RunManager({ store, bridge, executor: new ScriptedExecutor(), log: () => undefined });
      runs.start();
      const apiKeys = new ApiKeys([
        ["key-alice", "alice"],
        ["key-bob", "bob"],
      ]);
      app = await createGateway({ deps: { runs, store, bridge, items: backend.items }, apiKeys, stacks: ["lead"], version: "test", now: () => new Date(clockMs).toISOString() });
      await app.listen({ host: "127.0.0.1", port: 0 });
      const address = app.server.address();
      apiUrl = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
      alice = new Client({ apiUrl, apiKey: "key-alice" });
      bob = new Client({ apiUrl, apiKey: "key-bob" });
    });
    afterAll(async () => {
      await runs?.shutdown();
      await app?.close();
      await backend?.close();
    });
    beforeEach(() => {
      clockMs = T0;
      root = `r${++run}`;
    });
    const at = (ms: number) => new Date(ms).toISOString();

    it("putItem then getItem: LangGraph's item shape, namespace as an array, the SDK's camelCase copies", async () => {
      await alice.store.putItem([root, "prefs"], "theme", { color: "teal", size: 3 });
      const item = await alice.store.getItem([root, "prefs"], "theme");
      expect(item).toEqual({
        namespace: [root, "prefs"],
        key: "theme",
        value: { color: "teal", size: 3 },
        created_at: at(T0),
        updated_at: at(T0),
        createdAt: at(T0),
        updatedAt: at(T0),
      });
    });

    it("putItem over an existing key replaces the value and keeps created_at", async () => {
      await alice.store.putItem([root], "k", { v: 1 });
      clockMs = T0 + 5_000;
      await alice.store.putItem([root], "k", { w: 2 });
      const item = await alice.store.getItem([root], "k");
      expect(item?.value).toEqual({ w: 2 });
      expect(item?.created_at).toBe(at(T0));
      expect(item?.updated_at).toBe(at(T0 + 5_000));
    });

    it("getItem of a missing item is null (200 null, as LangGraph's JS server answers)", async () => {
      expect(await alice.store.getItem([root], "nothing")).toBeNull();
      const raw = await fetch(`${apiUrl}/store/items?namespace=${root}&key=nothing`, { headers: { "x-api-key": "key-alice" } });
      expect(raw.status).toBe(200);
      expect(await raw.json()).toBeNull();
    });

    it("deleteItem removes the item; deleting a missing one is a 204 too", async () => {
      await alice.store.putItem([root, "a"], "k", { v: 1 });
      await alice.store.putItem([root, "a"], "other", { v: 2 });
      await alice.store.deleteItem([root, "a"], "k");
      expect(await alice.store.getItem([root, "a"], "k")).toBeNull();
      expect((await alice.store.getItem([root, "a"], "other"))?.value).toEqual({ v: 2 });
      await expect(alice.store.deleteItem([root, "a"], "k")).resolves.toBeUndefined();
    });

    it("searchItems: only items under namespace_prefix (whole labels), newest write first", async () => {
      await alice.store.putItem([root, "docs"], "one", { n: 1 });
      clockMs += 1_000;
      await alice.store.putItem([root, "docs", "deep"], "two", { n: 2 });
      clockMs += 1_000;
      await alice.store.putItem([root, "docsx"], "three", { n: 3 });
      clockMs += 1_000;
      await alice.store.putItem([root, "docs"], "four", { n: 4 });
      const { items } = await alice.store.searchItems([root, "docs"]);
      expect(items.map((i) => i.key)).toEqual(["four", "two", "one"]);
      expect(items[1]).toMatchObject({ namespace: [root, "docs", "deep"], key: "two", value: { n: 2 }, created_at: at(T0 + 1_000) });
      const all = await alice.store.searchItems([root]);
      expect(all.items.map((i) => i.key)).toEqual(["four", "three", "two", "one"]);
    });

    it("searchItems filter: equality on value fields (deep, key order ignored) and LangGraph's operators", async () => {
      await alice.store.putItem([root], "a", { kind: "note", score: 3, tags: { x: 1, y: 2 } });
      await alice.store.putItem([root], "b", { kind: "note", score: 7 });
      await alice.store.putItem([root], "c", { kind: "task", score: 9 });
      const keys = async (filter: Record<string, unknown>) => (await alice.store.searchItems([root], { filter })).items.map((i) => i.key).sort();
      expect(await keys({ kind: "note" })).toEqual(["a", "b"]);
      expect(await keys({ tags: { y: 2, x: 1 } })).toEqual(["a"]);
      expect(await keys({ score: { $gt: 3 } })).toEqual(["b", "c"]);
      expect(await keys({ score: { $gte: 3, $lt: 9 } })).toEqual(["a", "b"]);
      expect(await keys({ kind: { $ne: "note" } })).toEqual(["c"]);
      expect(await keys({ kind: { $in: ["task", "other"] } })).toEqual(["c"]);
      expect(await keys({ kind: { $nin: ["task"] }, score: { $lte: 3 } })).toEqual(["a"]);
      expect(await keys({ missing: "x" })).toEqual([]);
    });

    it("searchItems limit and offset page through the order", async () => {
      for (let i = 0; i < 5; i++) {
        clockMs = T0 + i * 1_000;
        await alice.store.putItem([root], `k${i}`, { i });
      }
      const page = async (limit: number, offset: number) => (await alice.store.searchItems([root], { limit, offset })).items.map((i) => i.key);
      expect(await page(2, 0)).toEqual(["k4", "k3"]);
      expect(await page(2, 2)).toEqual(["k2", "k1"]);
      expect(await page(10, 4)).toEqual(["k0"]);
      // The SDK's default limit is 10.
      for (let i = 5; i < 12; i++) await alice.store.putItem([root], `k${i}`, { i });
      expect((await alice.store.searchItems([root])).items).toHaveLength(10);
    });

    it("searchItems with a query is a 400 KEEL_ERR_STORE_NO_INDEX: no embeddings index is configured", async () => {
      const { status, body } = await failure(alice.store.searchItems([root], { query: "tides" }));
      expect(status).toBe(400);
      expect(body).toMatchObject({ error: "KEEL_ERR_STORE_NO_INDEX", pointer: "/query" });
      expect(body.message).toMatch(/embeddings index/);
    });

    it("listNamespaces: prefix, suffix (with `*`), max_depth (cut and deduplicated), limit/offset, sorted", async () => {
      await alice.store.putItem([root, "users", "u1", "notes"], "k", { v: 1 });
      await alice.store.putItem([root, "users", "u2", "notes"], "k", { v: 1 });
      await alice.store.putItem([root, "users", "u2", "prefs"], "k", { v: 1 });
      await alice.store.putItem([root, "teams", "t1"], "k", { v: 1 });
      const list = (options: Parameters<Client["store"]["listNamespaces"]>[0]) => alice.store.listNamespaces(options).then((r) => r.namespaces);
      expect(await list({ prefix: [root] })).toEqual([
        [root, "teams", "t1"],
        [root, "users", "u1", "notes"],
        [root, "users", "u2", "notes"],
        [root, "users", "u2", "prefs"],
      ]);
      expect(await list({ prefix: [root, "users"], suffix: ["notes"] })).toEqual([
        [root, "users", "u1", "notes"],
        [root, "users", "u2", "notes"],
      ]);
      expect(await list({ prefix: [root, "*", "u2"] })).toEqual([
        [root, "users", "u2", "notes"],
        [root, "users", "u2", "prefs"],
      ]);
      expect(await list({ prefix: [root], maxDepth: 3 })).toEqual([
        [root, "teams", "t1"],
        [root, "users", "u1"],
        [root, "users", "u2"],
      ]);
      expect(await list({ prefix: [root], limit: 2, offset: 1 })).toEqual([
        [root, "users", "u1", "notes"],
        [root, "users", "u2", "notes"],
      ]);
    });

    it("a deleted namespace's last item takes the namespace out of listNamespaces", async () => {
      await alice.store.putItem([root, "gone"], "k", { v: 1 });
      await alice.store.deleteItem([root, "gone"], "k");
      expect((await alice.store.listNamespaces({ prefix: [root] })).namespaces).toEqual([]);
    });

    it("isolation: another user's items under the same namespace and key do not exist for you", async () => {
      await alice.store.putItem([root, "shared"], "k", { owner: "alice" });
      expect(await bob.store.getItem([root, "shared"], "k")).toBeNull();
      expect((await bob.store.searchItems([root])).items).toEqual([]);
      expect((await bob.store.listNamespaces({ prefix: [root] })).namespaces).toEqual([]);
      // Bob writing and deleting the same coordinates touches his own item only.
      await bob.store.putItem([root, "shared"], "k", { owner: "bob" });
      expect((await alice.store.getItem([root, "shared"], "k"))?.value).toEqual({ owner: "alice" });
      await bob.store.deleteItem([root, "shared"], "k");
      expect((await alice.store.getItem([root, "shared"], "k"))?.value).toEqual({ owner: "alice" });
      expect(await bob.store.getItem([root, "shared"], "k")).toBeNull();
    });

    it("ttl (minutes): the item is gone once it expired, from get, search and listNamespaces", async () => {
      await alice.store.putItem([root, "tmp"], "k", { v: 1 }, { ttl: 1 });
      await alice.store.putItem([root, "keep"], "k", { v: 2 });
      clockMs = T0 + MINUTE - 1;
      expect((await alice.store.getItem([root, "tmp"], "k", { refreshTtl: false }))?.value).toEqual({ v: 1 });
      clockMs = T0 + MINUTE;
      expect(await alice.store.getItem([root, "tmp"], "k")).toBeNull();
      expect((await alice.store.searchItems([root])).items.map((i) => i.namespace[1])).toEqual(["keep"]);
      expect((await alice.store.listNamespaces({ prefix: [root] })).namespaces).toEqual([[root, "keep"]]);
    });

    it("refreshTtl on getItem: true (the default) pushes the expiry to now + ttl, false leaves it", async () => {
      await alice.store.putItem([root], "refreshed", { v: 1 }, { ttl: 1 });
      await alice.store.putItem([root], "left", { v: 1 }, { ttl: 1 });
      clockMs = T0 + 50_000;
      await alice.store.getItem([root], "refreshed");
      await alice.store.getItem([root], "left", { refreshTtl: false });
      clockMs = T0 + 100_000;
      expect(await alice.store.getItem([root], "left")).toBeNull();
      expect((await alice.store.getItem([root], "refreshed", { refreshTtl: false }))?.key).toBe("refreshed");
      clockMs = T0 + 110_000;
      expect(await alice.store.getItem([root], "refreshed")).toBeNull();
    });

    it("refreshTtl on searchItems refreshes the returned items only when true", async () => {
      await alice.store.putItem([root, "a"], "k", { v: 1 }, { ttl: 1 });
      await alice.store.putItem([root, "b"], "k", { v: 1 }, { ttl: 1 });
      clockMs = T0 + 50_000;
      await alice.store.searchItems([root, "a"], { refreshTtl: true });
      await alice.store.searchItems([root, "b"], { refreshTtl: false });
      clockMs = T0 + 100_000;
      expect((await alice.store.searchItems([root], { refreshTtl: false })).items.map((i) => i.namespace[1])).toEqual(["a"]);
    });

    it("a put without ttl clears an earlier ttl; the sweep removes expired rows only", async () => {
      // Later than anything earlier tests wrote expires: sweep those first.
      clockMs = T0 + 60 * MINUTE;
      await backend.items.sweepExpired(at(clockMs));
      await alice.store.putItem([root], "made-permanent", { v: 1 }, { ttl: 1 });
      await alice.store.putItem([root], "made-permanent", { v: 2 });
      await alice.store.putItem([root], "expires", { v: 1 }, { ttl: 1 });
      const before = await backend.rowCount();
      expect(await backend.items.sweepExpired(at(clockMs + MINUTE - 1))).toBe(0);
      expect(await backend.items.sweepExpired(at(clockMs + MINUTE))).toBe(1);
      expect(await backend.rowCount()).toBe(before - 1);
      clockMs += 2 * MINUTE;
      expect((await alice.store.getItem([root], "made-permanent"))?.value).toEqual({ v: 2 });
      expect(await alice.store.getItem([root], "expires")).toBeNull();
    });

    it("an expired key written again is a new item: created_at starts anew", async () => {
      await alice.store.putItem([root], "k", { v: 1 }, { ttl: 1 });
      clockMs = T0 + 2 * MINUTE;
      await alice.store.putItem([root], "k", { v: 2 });
      expect((await alice.store.getItem([root], "k"))?.created_at).toBe(at(T0 + 2 * MINUTE));
    });

    describe("bad input is a 400 with a stable code and the pointer", () => {
      const bad = (path: string, init: { method: string; body?: unknown }) =>
        fetch(`${apiUrl}${path}`, { method: init.method, headers: { "x-api-key": "key-alice", "content-type": "application/json" }, ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}) }).then(async (r) => ({ status: r.status, body: await r.json() }));

      it("namespace labels: `:`, empty, the reserved root `langgraph`, and an empty namespace on put", async () => {
        expect(await failure(alice.store.putItem([root, "a:b"], "k", { v: 1 }))).toMatchObject({ status: 400, body: { error: "KEEL_ERR_STORE_NAMESPACE_INVALID", pointer: "/namespace/1" } });
        expect(await failure(alice.store.putItem([root, ""], "k", { v: 1 }))).toMatchObject({ status: 400, body: { error: "KEEL_ERR_STORE_NAMESPACE_INVALID", pointer: "/namespace/1" } });
        expect(await failure(alice.store.putItem(["langgraph", "x"], "k", { v: 1 }))).toMatchObject({ status: 400, body: { error: "KEEL_ERR_STORE_NAMESPACE_INVALID", pointer: "/namespace/0" } });
        expect(await failure(alice.store.putItem([], "k", { v: 1 }))).toMatchObject({ status: 400, body: { error: "KEEL_ERR_STORE_NAMESPACE_INVALID", pointer: "/namespace" } });
        expect(await failure(alice.store.searchItems([root, "x:y"]))).toMatchObject({ status: 400, body: { error: "KEEL_ERR_STORE_NAMESPACE_INVALID", pointer: "/namespace_prefix/1" } });
        expect(await failure(alice.store.listNamespaces({ suffix: ["a", ""] }))).toMatchObject({ status: 400, body: { error: "KEEL_ERR_STORE_NAMESPACE_INVALID", pointer: "/suffix/1" } });
        // The SDK refuses `.` itself; sent raw, it is the same 400.
        expect(await bad("/store/items", { method: "PUT", body: { namespace: ["a.b"], key: "k", value: {} } })).toMatchObject({ status: 400, body: { error: "KEEL_ERR_STORE_NAMESPACE_INVALID", pointer: "/namespace/0" } });
      });

      it("value must be an object, key non-empty, ttl positive, index a list only with an embeddings index", async () => {
        expect(await bad("/store/items", { method: "PUT", body: { namespace: [root], key: "k", value: [1, 2] } })).toMatchObject({ status: 400, body: { error: "KEEL_ERR_HTTP_INVALID_BODY", pointer: "/value" } });
        expect(await bad("/store/items", { method: "PUT", body: { namespace: [root], key: "", value: {} } })).toMatchObject({ status: 400, body: { error: "KEEL_ERR_HTTP_INVALID_BODY", pointer: "/key" } });
        expect(await bad("/store/items", { method: "PUT", body: { namespace: [root], value: {} } })).toMatchObject({ status: 400, body: { error: "KEEL_ERR_HTTP_INVALID_BODY", pointer: "/key" } });
        expect(await failure(alice.store.putItem([root], "k", { v: 1 }, { ttl: -1 }))).toMatchObject({ status: 400, body: { error: "KEEL_ERR_HTTP_INVALID_BODY", pointer: "/ttl" } });
        expect(await failure(alice.store.putItem([root], "k", { v: 1 }, { index: ["text"] }))).toMatchObject({ status: 400, body: { error: "KEEL_ERR_STORE_NO_INDEX", pointer: "/index" } });
        // index false / null ask for nothing to be embedded: accepted.
        await alice.store.putItem([root], "k", { v: 1 }, { index: false });
        expect((await alice.store.getItem([root], "k"))?.value).toEqual({ v: 1 });
      });

      it("filter operators, limit, offset, max_depth", async () => {
        expect(await failure(alice.store.searchItems([root], { filter: { n: { $regex: "x" } } }))).toMatchObject({ status: 400, body: { error: "KEEL_ERR_HTTP_INVALID_BODY", pointer: "/filter/n/$regex" } });
        expect(await failure(alice.store.searchItems([root], { filter: { n: { $in: 3 } } }))).toMatchObject({ status: 400, body: { error: "KEEL_ERR_HTTP_INVALID_BODY", pointer: "/filter/n/$in" } });
        // limit 0 is an empty page, as LangGraph answers (it was a 400, then the default once null-coerced).
        await alice.store.putItem([root, "zero"], "k", { v: 1 });
        expect((await alice.store.searchItems([root, "zero"])).items).toHaveLength(1);
        expect(await alice.store.searchItems([root, "zero"], { limit: 0 })).toEqual({ items: [] });
        expect(await alice.store.listNamespaces({ prefix: [root, "zero"], limit: 0 })).toEqual({ namespaces: [] });
        expect(await failure(alice.store.searchItems([root], { limit: -1 }))).toMatchObject({ status: 400, body: { error: "KEEL_ERR_HTTP_INVALID_BODY", pointer: "/limit" } });
        expect(await failure(alice.store.searchItems([root], { offset: -1 }))).toMatchObject({ status: 400, body: { error: "KEEL_ERR_HTTP_INVALID_BODY", pointer: "/offset" } });
        expect(await failure(alice.store.listNamespaces({ maxDepth: 0 }))).toMatchObject({ status: 400, body: { error: "KEEL_ERR_HTTP_INVALID_BODY", pointer: "/max_depth" } });
        expect(await failure(alice.store.listNamespaces({ limit: 1.5 }))).toMatchObject({ status: 400, body: { error: "KEEL_ERR_HTTP_INVALID_BODY", pointer: "/limit" } });
        expect(await failure(alice.store.putItem([root], "k", { v: 1 }, { ttl: 0 }))).toMatchObject({ status: 400, body: { error: "KEEL_ERR_HTTP_INVALID_BODY", pointer: "/ttl" } });
        // null numbers are absent: the defaults apply.
        expect(await bad("/store/items/search", { method: "POST", body: { namespace_prefix: [root, "zero"], limit: null, offset: null } })).toMatchObject({ status: 200, body: { items: [{ key: "k" }] } });
      });

      it("without a key the store routes are a 401", async () => {
        const anonymous = await fetch(`${apiUrl}/store/items?namespace=${root}&key=k`);
        expect(anonymous.status).toBe(401);
      });
    });
  });
}
