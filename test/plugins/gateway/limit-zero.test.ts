/**
 * `limit: 0` on every paged route, through `@langchain/langgraph-sdk` (which sends it as
 * given), as LangGraph's server answers it: a 400 naming `/limit` where LangGraph's minimum
 * is 1 (threads, assistants, assistant versions, crons search), an empty page where it is
 * not (`runs.list`, store search, store namespaces). The gateway's type coercion used to
 * turn a refused `0` into null in a `Nullable` number (plugins/gateway/schemas.ts), so a
 * crons search with `limit: 0` answered the default page.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Client } from "@langchain/langgraph-sdk";
import { startThreadsServer, type Backend, type ThreadsServer } from "./threads-api-server.js";

async function refused(call: Promise<unknown>): Promise<{ status: number; body: { error: string; pointer?: string } }> {
  try {
    await call;
  } catch (error) {
    const e = error as { status?: number; text?: string };
    if (typeof e.status !== "number") throw error;
    return { status: e.status, body: JSON.parse(e.text ?? "{}") };
  }
  throw new Error("the call succeeded; a refusal was expected");
}

const BAD_LIMIT = { status: 400, body: { error: "KEEL_ERR_HTTP_INVALID_BODY", pointer: "/limit" } };
const input = { messages: [{ role: "user", content: "Write a note." }] };

describe.each(["memory", "sqlite"] as Backend[])("limit 0 on %s", (backend) => {
  let server: ThreadsServer;
  let alice: Client;
  let threadId: string;

  beforeAll(async () => {
    server = await startThreadsServer(backend);
    alice = server.alice;
    threadId = (await alice.threads.create({ metadata: { suite: "limit-zero" } })).thread_id;
    await alice.runs.wait(threadId, "lead", { input });
  }, 30_000);

  afterAll(async () => {
    await server?.close();
  });

  it("threads.search and assistants.search / getVersions: a 400 naming /limit (LangGraph's minimum is 1)", async () => {
    expect(await alice.threads.search({ metadata: { suite: "limit-zero" }, limit: 1 })).toHaveLength(1);
    expect(await refused(alice.threads.search({ metadata: { suite: "limit-zero" }, limit: 0 }))).toMatchObject(BAD_LIMIT);
    expect(await refused(alice.assistants.search({ limit: 0 }))).toMatchObject(BAD_LIMIT);
    expect(await refused(alice.assistants.getVersions("lead", { limit: 0 }))).toMatchObject(BAD_LIMIT);
  });

  it("runs.list: an empty page", async () => {
    expect(await alice.runs.list(threadId, { limit: 1 })).toHaveLength(1);
    expect(await alice.runs.list(threadId, { limit: 0 })).toEqual([]);
  });

  it("store.searchItems and listNamespaces: an empty page; null is the default", async () => {
    await alice.store.putItem(["limit-zero"], "k", { v: 1 });
    expect((await alice.store.searchItems(["limit-zero"])).items).toHaveLength(1);
    expect(await alice.store.searchItems(["limit-zero"], { limit: 0 })).toEqual({ items: [] });
    expect(await alice.store.listNamespaces({ prefix: ["limit-zero"] })).toEqual({ namespaces: [["limit-zero"]] });
    expect(await alice.store.listNamespaces({ prefix: ["limit-zero"], limit: 0 })).toEqual({ namespaces: [] });
    const page = await fetch(`${server.url}/store/items/search`, { method: "POST", headers: { "x-api-key": "key-alice", "content-type": "application/json" }, body: JSON.stringify({ namespace_prefix: ["limit-zero"], limit: null }) });
    expect(((await page.json()) as { items: unknown[] }).items).toHaveLength(1);
  });

  // The memory gateway serves no crons: the case exists on SQLite only (not a skip).
  if (backend !== "memory") it("crons.search: a 400 naming /limit, not the default page", async () => {
    const cron = await alice.crons.create("lead", { schedule: "0 0 1 1 *", input, enabled: false });
    expect((await alice.crons.search({ limit: 1 })).map((c) => c.cron_id)).toEqual([cron.cron_id]);
    expect(await refused(alice.crons.search({ limit: 0 }))).toMatchObject(BAD_LIMIT);
    await alice.crons.delete(cron.cron_id);
  });

  it("a Nullable string refuses an empty value instead of taking it as absent", async () => {
    const response = await fetch(`${server.url}/threads/${threadId}/runs`, { method: "POST", headers: { "x-api-key": "key-alice", "content-type": "application/json" }, body: JSON.stringify({ assistant_id: "lead", input, checkpoint_id: "" }) });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: "KEEL_ERR_HTTP_INVALID_BODY", pointer: "/checkpoint_id" });
  });
});
