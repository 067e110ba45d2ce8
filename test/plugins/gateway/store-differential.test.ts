/**
 * The store API next to LangGraph's own JS server (`@langchain/langgraph-api` 1.5.1, the
 * benchmark's child process from dist/tools/bench): the same SDK calls go to both, and the
 * answers are compared with timestamps masked. The intended differences are asserted as
 * such (docs/http.md, "Store API", lists them).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { join } from "node:path";
import { Client } from "@langchain/langgraph-sdk";
import { existsSync, rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packageRoot } from "../../../kernel/package-root.js";
import { MemoryItemStore } from "../../../kernel/runs/memory-item-store.js";
import { MemoryRunStore } from "../../../kernel/runs/memory-store.js";
import { MemoryStreamBridge } from "../../../kernel/runs/memory-bridge.js";
import { RunManager } from "../../../kernel/runs/run-manager.js";
import { createGateway, type GatewayApp } from "../../../plugins/gateway/index.js";
import { tempDir } from "../../e2e/serve-process.js";
import { ScriptedExecutor } from "./harness.js";
import { failure } from "./store-api.js";

const SERVER = join(packageRoot(), "dist", "tools", "bench", "langgraph-server.js");

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function startLangGraph(port: number, cwd: string): Promise<ChildProcess> {
  if (!existsSync(SERVER)) throw new Error(`${SERVER} is missing: build dist first (npx tsc -p tsconfig.json; npm test does)`);
  const child = spawn(process.execPath, [SERVER, String(port), cwd], { cwd, stdio: ["ignore", "pipe", "pipe"] });
  return new Promise((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`langgraph-api did not start: ${out}`)), 50_000);
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk;
      if (out.includes("ready\n")) {
        clearTimeout(timer);
        resolve(child);
      }
    });
    child.once("exit", (code) => reject(new Error(`langgraph-api exited (${code}): ${out}`)));
  });
}

/** Timestamps masked (each must be ISO-8601), and the SDK's camelCase copies dropped. */
function masked(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(masked);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([k]) => k !== "createdAt" && k !== "updatedAt")
      .map(([k, v]) => [k, (k === "created_at" || k === "updated_at") && typeof v === "string" && !Number.isNaN(Date.parse(v)) ? "<time>" : masked(v)]),
  );
}

describe("store API: Keel next to @langchain/langgraph-api", () => {
  let child: ChildProcess | undefined;
  let app: GatewayApp;
  let runs: RunManager;
  let cwd: string;
  let keel: Client;
  let langgraph: Client;

  beforeAll(async () => {
    cwd = tempDir("keel-store-diff-");
    const port = await freePort();
    child = await startLangGraph(port, cwd);
    langgraph = new Client({ apiUrl: `http://127.0.0.1:${port}` });
    const store = new MemoryRunStore();
    const bridge = new MemoryStreamBridge();
    runs = new RunManager({ store, bridge, executor: new ScriptedExecutor(), log: () => undefined });
    runs.start();
    app = await createGateway({ deps: { runs, store, bridge, items: new MemoryItemStore() }, stacks: ["lead"], version: "test" });
    await app.listen({ host: "127.0.0.1", port: 0 });
    keel = new Client({ apiUrl: `http://127.0.0.1:${(app.server.address() as { port: number }).port}` });
  });
  afterAll(async () => {
    child?.kill("SIGKILL");
    await runs?.shutdown();
    await app?.close();
    rmSync(cwd, { recursive: true, force: true });
  });

  /** The same calls on both servers, answers masked. */
  const both = async <T>(call: (client: Client) => Promise<T>) => {
    const [k, l] = [await call(keel), await call(langgraph)];
    return { keel: masked(k), langgraph: masked(l) };
  };

  it("put, get (present and missing), delete: the same answers", async () => {
    const seed = async (c: Client) => {
      await c.store.putItem(["diff", "docs"], "a", { kind: "note", n: 1 });
      await c.store.putItem(["diff", "docs", "deep"], "b", { kind: "task", n: 2 });
      await c.store.putItem(["diff", "other"], "c", { kind: "note", n: 3 });
      await c.store.putItem(["diff", "docs"], "a", { kind: "note", n: 10 });
    };
    await seed(keel);
    await seed(langgraph);
    const got = await both((c) => c.store.getItem(["diff", "docs"], "a"));
    expect(got.keel).toEqual({ namespace: ["diff", "docs"], key: "a", value: { kind: "note", n: 10 }, created_at: "<time>", updated_at: "<time>" });
    expect(got.keel).toEqual(got.langgraph);
    const missing = await both((c) => c.store.getItem(["diff", "docs"], "zzz"));
    expect(missing.keel).toBeNull();
    expect(missing.keel).toEqual(missing.langgraph);
    const deleted = await both(async (c) => {
      await c.store.putItem(["diff", "tmp"], "x", { v: 1 });
      await c.store.deleteItem(["diff", "tmp"], "x");
      return c.store.getItem(["diff", "tmp"], "x");
    });
    expect(deleted.keel).toBeNull();
    expect(deleted.keel).toEqual(deleted.langgraph);
  });

  it("search with a prefix, a filter and paging: the same items (Keel orders newest write first, LangGraph's in-memory server by insertion)", async () => {
    const byKey = (r: { items: { key: string }[] }) => [...r.items].sort((a, b) => a.key.localeCompare(b.key));
    const filtered = await both(async (c) => byKey(await c.store.searchItems(["diff"], { filter: { kind: "note" } })));
    expect((filtered.keel as { key: string }[]).map((i) => i.key)).toEqual(["a", "c"]);
    expect(filtered.keel).toEqual(filtered.langgraph);
    const under = await both(async (c) => byKey(await c.store.searchItems(["diff", "docs"])));
    expect((under.keel as { key: string }[]).map((i) => i.key)).toEqual(["a", "b"]);
    expect(under.keel).toEqual(under.langgraph);
    const operators = await both(async (c) => byKey(await c.store.searchItems(["diff"], { filter: { n: { $gt: 2 } } })));
    expect(operators.keel).toEqual(operators.langgraph);
    const page = await both(async (c) => (await c.store.searchItems(["diff"], { limit: 2, offset: 1 })).items.length);
    expect(page.keel).toBe(2);
    expect(page.keel).toEqual(page.langgraph);
  });

  it("listNamespaces with prefix, suffix, max_depth and paging: the same lists, but for a namespace whose items were all deleted", async () => {
    // LangGraph's in-memory store keeps listing ["diff", "tmp"] after its one item was deleted; Keel lists namespaces that hold items.
    const langgraphAll = (await langgraph.store.listNamespaces({ prefix: ["diff"] })).namespaces;
    expect(langgraphAll).toContainEqual(["diff", "tmp"]);
    expect((await keel.store.listNamespaces({ prefix: ["diff"] })).namespaces).not.toContainEqual(["diff", "tmp"]);
    for (const options of [{ prefix: ["diff"] }, { prefix: ["diff"], maxDepth: 2 }, { suffix: ["deep"] }, { prefix: ["*", "docs"] }]) {
      const listed = await both((c) => c.store.listNamespaces(options));
      const withoutEmptied = { namespaces: (listed.langgraph as { namespaces: string[][] }).namespaces.filter((ns) => ns.join("/") !== "diff/tmp") };
      expect(listed.keel, JSON.stringify(options)).toEqual(withoutEmptied);
    }
    // Paging over the same lists (LangGraph's has the emptied namespace last).
    expect((await keel.store.listNamespaces({ prefix: ["diff"], limit: 1, offset: 1 })).namespaces).toEqual((await langgraph.store.listNamespaces({ prefix: ["diff"], limit: 1, offset: 1 })).namespaces);
    expect((await keel.store.listNamespaces({ prefix: ["diff"] })).namespaces).toEqual([
      ["diff", "docs"],
      ["diff", "docs", "deep"],
      ["diff", "other"],
    ]);
  });

  it("intended differences: a query without an index is a 400 (LangGraph ignores it); a `:` label a 400 (LangGraph: 500)", async () => {
    expect(await failure(keel.store.searchItems(["diff"], { query: "note" }))).toMatchObject({ status: 400, body: { error: "KEEL_ERR_STORE_NO_INDEX" } });
    expect((await langgraph.store.searchItems(["diff"], { query: "note" })).items.length).toBeGreaterThan(0);
    expect(await failure(keel.store.putItem(["a:b"], "k", {}))).toMatchObject({ status: 400, body: { error: "KEEL_ERR_STORE_NAMESPACE_INVALID" } });
    // Raw: the SDK would retry a 500.
    const raw = await fetch(`${langgraph.store["apiUrl"]}/store/items`, { method: "PUT", headers: { "content-type": "application/json" }, body: JSON.stringify({ namespace: ["a:b"], key: "k", value: {} }) });
    expect(raw.status).toBe(500);
  });
});
