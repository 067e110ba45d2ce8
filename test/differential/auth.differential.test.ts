/**
 * The same custom auth handler (test/e2e/fixtures/auth-handler.mjs, a LangGraph `Auth`
 * instance) loaded by both servers — `keel serve --auth FILE:auth` and
 * `@langchain/langgraph-api`'s `auth.path` — and the same requests sent to both: statuses,
 * and answers masked as in differential.test.ts, may differ only as docs/http.md's differences table says.
 * Its own file: the LangGraph server keeps its auth handler in a module-level global.
 */
import { fileURLToPath } from "node:url";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { diff, judge, mask, type ExpectedDifference } from "./compare.js";
import { differenceIds } from "./differences-table.js";
import { startServers, type Servers } from "./servers.js";

const AUTH = `${fileURLToPath(new URL("../e2e/fixtures/auth-handler.mjs", import.meta.url))}:auth`;

describe("differential with a custom auth handler", () => {
  let servers: Servers;
  const side = (name: "keel" | "langgraph") => servers[name].url;
  const as = (url: string, token?: string) => new Client({ apiUrl: url, callerOptions: { maxRetries: 0 }, ...(token ? { defaultHeaders: { authorization: `Bearer ${token}` } } : {}) });
  const statusOf = async (call: Promise<unknown>) => call.then(() => 200, (error: { status?: number }) => error.status);
  const compare = (keel: unknown, langgraph: unknown, expected: ExpectedDifference[]) => {
    expect(expected.map((e) => e.id).filter((id) => !differenceIds().includes(id))).toEqual([]);
    const verdict = judge(diff(mask(keel), mask(langgraph)), expected);
    expect({ unexpected: verdict.unexpected, stale: verdict.stale }).toEqual({ unexpected: [], stale: [] });
  };
  beforeAll(async () => {
    servers = await startServers({ auth: AUTH });
  }, 30_000);
  afterAll(async () => servers?.close());

  it("the handler's 401 is a 401 on both (the body per D2)", async () => {
    const answers = await Promise.all(["keel", "langgraph"].map(async (name) => {
      const response = await fetch(`${side(name as "keel")}/threads`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
      return { status: response.status, body: await response.text() };
    }));
    expect(answers.map((a) => a.status)).toEqual([401, 401]);
    expect(JSON.parse(answers[0]!.body)).toMatchObject({ error: "KEEL_ERR_HTTP_UNAUTHORIZED", message: "unknown token", detail: "unknown token" });
    expect(answers[1]!.body).toBe("unknown token");
  });

  it("threads:create stamps the creator the same way on both", async () => {
    const [keel, langgraph] = await Promise.all([as(side("keel"), "tok-ann").threads.create({ metadata: { topic: "t" } }), as(side("langgraph"), "tok-ann").threads.create({ metadata: { topic: "t" } })]);
    expect(keel.metadata).toEqual({ topic: "t", creator: "ann" });
    compare(keel, langgraph, [{ pointer: "/state_updated_at", id: "D7" }, { pointer: "/config", id: "D7" }, { pointer: "/values", id: "D7" }, { pointer: "/interrupts", id: "D7" }]);
  });

  it("a `false` on threads:create is a 403 on both", async () => {
    expect(await Promise.all([statusOf(as(side("keel"), "tok-rob").threads.create()), statusOf(as(side("langgraph"), "tok-rob").threads.create())])).toEqual([403, 403]);
  });

  it("another user's thread: 404 in Keel, served by LangGraph when the handler sets no filter (D14)", async () => {
    const statuses = [];
    for (const name of ["keel", "langgraph"] as const) {
      const thread = await as(side(name), "tok-ann").threads.create();
      statuses.push(await statusOf(as(side(name), "tok-rob").threads.get(thread.thread_id)));
    }
    expect(statuses).toEqual([404, 200]);
  });
});
