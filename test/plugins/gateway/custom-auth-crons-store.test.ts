/**
 * The custom auth handler on the crons and store routes (docs/http.md,
 * "Custom auth (the LangGraph way)"): LangGraph's `crons:*` and `store:*` events are asked,
 * a handler's metadata is stored on create, its filter hides crons (404 on update/delete,
 * left out of search and count), and a refused store action is a 403 (put, search,
 * namespaces) or a 404 (get, delete).
 */
import { Client } from "@langchain/langgraph-sdk";
import { Auth, HTTPException } from "@langchain/langgraph-sdk/auth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemoryCronStore } from "../../../kernel/runs/cron-memory-store.js";
import { MemoryStreamBridge } from "../../../kernel/runs/memory-bridge.js";
import { MemoryRunStore } from "../../../kernel/runs/memory-store.js";
import { RunManager } from "../../../kernel/runs/run-manager.js";
import { ApiKeys, createGateway, type GatewayApp } from "../../../plugins/gateway/index.js";
import { toAuthHandler } from "../../../plugins/gateway/auth-handler.js";
import { ScriptedExecutor } from "./harness.js";

interface Person {
  identity: string;
  team: string;
  permissions: string[];
}
const PEOPLE: Record<string, Person> = {
  "tok-alice": { identity: "alice", team: "red", permissions: ["store:write"] },
  "tok-bob": { identity: "bob", team: "blue", permissions: [] },
};
const events: string[] = [];

const auth = new Auth()
  .authenticate(async (request: Request) => {
    const person = PEOPLE[request.headers.get("authorization")?.replace(/^Bearer\s+/i, "") ?? ""];
    if (!person) throw new HTTPException(401, { message: "no such token" });
    return person;
  })
  .on("crons:create", ({ user, value }) => {
    events.push("crons:create");
    const metadata = ((value as { metadata?: Record<string, unknown> }).metadata ??= {});
    metadata.team = (user as unknown as Person).team;
    return undefined;
  })
  // Only crons of the "visible" kind are readable, updatable and deletable.
  .on("crons", ({ event }) => {
    events.push(event);
    return { kind: "visible" };
  })
  .on("store:put", ({ permissions, value }) => {
    events.push("store:put");
    return permissions.includes("store:write") && (value as { key?: string }).key !== "secret";
  })
  .on("store:get", ({ value }) => {
    events.push("store:get");
    return (value as { key?: string }).key !== "hidden";
  })
  .on("store", ({ event, permissions }) => {
    events.push(event);
    return permissions.includes("store:write");
  });

/** The status and coded body of a refused SDK call. */
async function refusal(call: Promise<unknown>): Promise<{ status: number; error: string }> {
  try {
    await call;
  } catch (error) {
    const { status, message } = error as { status: number; message: string };
    return { status, error: (JSON.parse(message.replace(/^HTTP \d+: /, "")) as { error: string }).error };
  }
  return { status: 200, error: "" };
}

describe("custom auth on crons and the store", () => {
  let app: GatewayApp;
  let runs: RunManager;
  let alice: Client;
  let bob: Client;

  beforeAll(async () => {
    const store = new MemoryRunStore();
    const bridge = new MemoryStreamBridge();
    runs = new RunManager({ store, bridge, executor: new ScriptedExecutor(), log: () => undefined });
    app = await createGateway({ deps: { runs, store, bridge, crons: new MemoryCronStore() }, apiKeys: new ApiKeys(), auth: toAuthHandler(auth), stacks: ["lead"], version: "t" });
    const apiUrl = await app.listen({ port: 0, host: "127.0.0.1" });
    alice = new Client({ apiUrl, defaultHeaders: { authorization: "Bearer tok-alice" } });
    bob = new Client({ apiUrl, defaultHeaders: { authorization: "Bearer tok-bob" } });
  });
  afterAll(async () => {
    await runs.shutdown();
    await app.close();
  });

  it("crons: the handler's metadata is stored on create; its filter hides crons from update, delete, search and count", async () => {
    events.length = 0;
    const visible = await alice.crons.create("lead", { schedule: "0 * * * *", metadata: { kind: "visible" } });
    const hidden = await alice.crons.create("lead", { schedule: "0 * * * *", metadata: { kind: "hidden" } });
    expect(visible.metadata).toEqual({ kind: "visible", team: "red" });
    expect(hidden.metadata).toEqual({ kind: "hidden", team: "red" });
    expect(events).toEqual(["crons:create", "crons:create"]);

    const found = await alice.crons.search({});
    expect(found.map((c) => c.cron_id)).toEqual([visible.cron_id]);
    expect(await alice.crons.count({})).toBe(1);
    expect(events).toContain("crons:search");

    // The owner's own cron, filtered out by the handler: the same 404 as a missing one.
    expect(await refusal(alice.crons.update(hidden.cron_id, { schedule: "5 * * * *" }))).toEqual({ status: 404, error: "KEEL_ERR_HTTP_NOT_FOUND" });
    expect(await refusal(alice.crons.delete(hidden.cron_id))).toEqual({ status: 404, error: "KEEL_ERR_HTTP_NOT_FOUND" });
    expect((await alice.crons.update(visible.cron_id, { schedule: "5 * * * *" })).schedule).toBe("5 * * * *");
    expect(events).toContain("crons:update");
    // Keel's ownership holds on top: the filter matches, but the cron is alice's.
    expect(await refusal(bob.crons.delete(visible.cron_id))).toEqual({ status: 404, error: "KEEL_ERR_HTTP_NOT_FOUND" });
    await alice.crons.delete(visible.cron_id);
    expect(events).toContain("crons:delete");
  });

  it("store: put, get, delete, search and namespaces ask the handler; refusals are 403 (put, search, namespaces) or 404 (get, delete)", async () => {
    events.length = 0;
    await alice.store.putItem(["notes"], "a", { text: "kept" });
    await alice.store.putItem(["notes"], "hidden", { text: "stored, not readable" });
    expect(await refusal(alice.store.putItem(["notes"], "secret", { text: "x" }))).toEqual({ status: 403, error: "KEEL_ERR_HTTP_FORBIDDEN" });
    expect(await refusal(bob.store.putItem(["notes"], "b", { text: "x" }))).toEqual({ status: 403, error: "KEEL_ERR_HTTP_FORBIDDEN" });

    expect((await alice.store.getItem(["notes"], "a"))?.value).toEqual({ text: "kept" });
    expect(await refusal(alice.store.getItem(["notes"], "hidden"))).toEqual({ status: 404, error: "KEEL_ERR_HTTP_NOT_FOUND" });

    expect((await alice.store.searchItems(["notes"])).items.map((i) => i.key).sort()).toEqual(["a", "hidden"]);
    expect(await refusal(bob.store.searchItems(["notes"]))).toEqual({ status: 403, error: "KEEL_ERR_HTTP_FORBIDDEN" });
    expect((await alice.store.listNamespaces()).namespaces).toEqual([["notes"]]);
    expect(await refusal(bob.store.listNamespaces())).toEqual({ status: 403, error: "KEEL_ERR_HTTP_FORBIDDEN" });

    expect(await refusal(bob.store.deleteItem(["notes"], "a"))).toEqual({ status: 404, error: "KEEL_ERR_HTTP_NOT_FOUND" });
    await alice.store.deleteItem(["notes"], "a");
    expect(await alice.store.getItem(["notes"], "a")).toBeNull();
    expect(new Set(events)).toEqual(new Set(["store:put", "store:get", "store:search", "store:list_namespaces", "store:delete"]));
  });
});
