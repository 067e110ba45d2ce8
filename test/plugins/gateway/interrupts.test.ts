/**
 * Interrupts and resume through the real SDK against a real gateway, run service and agent
 * loop on the scripted `steps` model (bash, then write_file, then a final answer), on
 * memory, SQLite and PostgreSQL: interrupt_before / interrupt_after, `command` (resume,
 * update + goto), `input: null`, the paused run's outcome and report, the thread's status.
 */
import { randomUUID } from "node:crypto";
import type { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postgresUnavailable } from "../../e2e/services.js";
import { scratchDatabase } from "../store-sql/scratch-database.js";
import { startThreadsServer, type Backend, type ThreadsServer } from "./threads-api-server.js";

const PG_URL = process.env.KEEL_TEST_PG_URL ?? "postgres://keel:keel@127.0.0.1:5432/keel";
const pgSkip = await postgresUnavailable(PG_URL);
if (pgSkip !== null) console.warn(`skipping interrupts on PostgreSQL: ${pgSkip}`);
const BACKENDS: Backend[] = pgSkip === null ? ["memory", "sqlite", "postgres"] : ["memory", "sqlite"];

type Values = { messages?: Array<{ type: string; name?: string; tool_calls?: Array<{ name: string }> }>; outcome?: { status: string; primaryStopReason?: string; stopReasons: Array<{ reason: string }> }; __interrupt__?: unknown[] };
const NOTE = [{ role: "user", content: "Write a note." }];
const toolResults = (values: Values) => (values.messages ?? []).filter((m) => m.type === "tool").map((m) => m.name);

describe.each(BACKENDS)("interrupts on %s", (backend) => {
  let server: ThreadsServer;
  let alice: Client;
  let dropDatabase: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    let pgUrl: string | undefined;
    if (backend === "postgres") {
      const scratch = await scratchDatabase(PG_URL, "keel_interrupts");
      pgUrl = scratch.url;
      dropDatabase = scratch.drop;
    }
    server = await startThreadsServer(backend, pgUrl);
    ({ alice } = server);
  }, 30_000);

  afterAll(async () => {
    await server?.close();
    await dropDatabase?.();
  });

  it("interrupt_before tools: no tool ran, run success + outcome partial/awaiting_input, thread interrupted with next [tools]; input null resumes", async () => {
    const thread = await alice.threads.create();
    const paused = (await alice.runs.wait(thread.thread_id, "lead", { input: { messages: NOTE }, interruptBefore: ["tools"] })) as Values;
    expect(toolResults(paused)).toEqual([]);
    expect(paused.outcome).toMatchObject({ status: "partial", primaryStopReason: "awaiting_input" });
    const [run] = await alice.runs.list(thread.thread_id);
    expect(run!.status).toBe("success");
    expect((run as unknown as Values).outcome?.primaryStopReason).toBe("awaiting_input");
    expect((await alice.threads.get(thread.thread_id)).status).toBe("interrupted");
    const state = await alice.threads.getState(thread.thread_id);
    expect(state.next).toEqual(["tools"]);
    expect(state.tasks.map((t) => [t.name, t.interrupts])).toEqual([["tools", []]]);
    const [head] = await alice.threads.getHistory(thread.thread_id, { limit: 1 });
    expect(head!.next).toEqual(["tools"]);
    const found = await alice.threads.search({ status: "interrupted", limit: 100 });
    expect(found.map((t) => t.thread_id)).toContain(thread.thread_id);

    const report = (await (await fetch(`${server.url}/threads/${thread.thread_id}/runs/${run!.run_id}/report`, { headers: { "x-api-key": "key-alice" } })).json()) as { outcome: { status: string; stopReasons: Array<{ reason: string }> } };
    expect(report.outcome.status).toBe("partial");
    expect(report.outcome.stopReasons.map((r) => r.reason)).toEqual(["awaiting_input"]);

    const done = (await alice.runs.wait(thread.thread_id, "lead", { input: null })) as Values;
    expect(toolResults(done)).toEqual(["bash", "write_file"]);
    expect(done.outcome).toMatchObject({ status: "succeeded" });
    expect((await alice.threads.get(thread.thread_id)).status).toBe("idle");
    expect((await alice.threads.getState(thread.thread_id)).next).toEqual([]);
  });

  it("command resume continues a pause; each resume may pause again (interrupt_before on the resume run)", async () => {
    const thread = await alice.threads.create();
    await alice.runs.wait(thread.thread_id, "lead", { input: { messages: NOTE }, interruptBefore: ["tools"] });
    const second = (await alice.runs.wait(thread.thread_id, "lead", { command: { resume: "approved" }, interruptBefore: ["tools"] })) as Values;
    // The bash call ran; the write_file call waits.
    expect(toolResults(second)).toEqual(["bash"]);
    expect(second.outcome?.primaryStopReason).toBe("awaiting_input");
    const state = await alice.threads.getState(thread.thread_id);
    expect(state.next).toEqual(["tools"]);
    const last = (state.values as Values).messages!.at(-1)!;
    expect(last.tool_calls?.map((c) => c.name)).toEqual(["write_file"]);
    const done = (await alice.runs.wait(thread.thread_id, "lead", { command: { resume: "approved" } })) as Values;
    expect(toolResults(done)).toEqual(["bash", "write_file"]);
    expect(done.outcome?.status).toBe("succeeded");
  });

  it("interrupt_after tools, then command update + goto agent: the update is in the thread before the next model call", async () => {
    const thread = await alice.threads.create();
    const paused = (await alice.runs.wait(thread.thread_id, "lead", { input: { messages: NOTE }, interruptAfter: ["tools"] })) as Values;
    expect(toolResults(paused)).toEqual(["bash"]);
    expect((await alice.threads.getState(thread.thread_id)).next).toEqual(["agent"]);
    const done = (await alice.runs.wait(thread.thread_id, "lead", { command: { update: { messages: [{ role: "user", content: "Keep it short." }] }, goto: "agent" } })) as Values;
    const types = done.messages!.map((m) => m.type);
    // human, ai(bash), tool, human(update), ai(write_file), tool, ai(done)
    expect(types).toEqual(["human", "ai", "tool", "human", "ai", "tool", "ai"]);
    expect(done.outcome?.status).toBe("succeeded");
  });

  // The in-memory harness serves no assistants registry: the assistant case runs on SQLite and PostgreSQL.
  // The memory harness serves no assistants registry: the case exists on SQLite and PostgreSQL only (not a skip).
  if (backend !== "memory") it("an assistant's config sets the interrupt points; the run's own value wins", async () => {
    const assistant = await alice.assistants.create({ graphId: "lead", config: { interrupt_before: ["tools"] } as never });
    const thread = await alice.threads.create();
    const paused = (await alice.runs.wait(thread.thread_id, assistant.assistant_id, { input: { messages: NOTE } })) as Values;
    expect(paused.outcome?.primaryStopReason).toBe("awaiting_input");
    expect(toolResults(paused)).toEqual([]);
    const other = await alice.threads.create();
    const overridden = (await alice.runs.wait(other.thread_id, assistant.assistant_id, { input: { messages: NOTE }, interruptBefore: ["agent"] })) as Values;
    // Before the first model step: nothing ran at all.
    expect(overridden.outcome?.primaryStopReason).toBe("awaiting_input");
    expect((await alice.threads.getState(other.thread_id)).next).toEqual(["agent"]);
  });

  it("unknown node names and a bad command are 400s with a stable code and the pointer; nothing is admitted", async () => {
    const thread = await alice.threads.create();
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ interrupt_before: ["tools", "planner"] }, "KEEL_ERR_RUN_INTERRUPT_NODE_UNKNOWN", "/interrupt_before/1"],
      [{ interrupt_after: "all" }, "KEEL_ERR_RUN_INTERRUPT_NODE_UNKNOWN", "/interrupt_after"],
      [{ config: { interrupt_before: ["model"] } }, "KEEL_ERR_RUN_INTERRUPT_NODE_UNKNOWN", "/config/interrupt_before/0"],
      [{ command: { goto: "planner" } }, "KEEL_ERR_RUN_INTERRUPT_NODE_UNKNOWN", "/command/goto"],
      [{ command: {} }, "KEEL_ERR_HTTP_INVALID_BODY", "/command"],
      [{ command: { update: "x" } }, "KEEL_ERR_HTTP_INVALID_BODY", "/command/update"],
    ];
    for (const [fields, code, pointer] of cases) {
      const response = await fetch(`${server.url}/threads/${thread.thread_id}/runs`, { method: "POST", headers: { "x-api-key": "key-alice", "content-type": "application/json" }, body: JSON.stringify({ assistant_id: "lead", input: "x", ...fields }) });
      expect({ fields, status: response.status, body: await response.json() }).toMatchObject({ fields, status: 400, body: { error: code, pointer } });
    }
    expect(await alice.runs.list(thread.thread_id)).toEqual([]);
  });

  it("budgets continue across resumes: max_turns 2 is reached on the second resume, not reset by it", async () => {
    const thread = await alice.threads.create();
    const config = { configurable: { max_turns: 2 } };
    await alice.runs.wait(thread.thread_id, "lead", { input: { messages: NOTE }, interruptBefore: ["tools"], config });
    // Turn 2 is the forced final one: the write_file call is discarded, the run ends capped.
    const second = (await alice.runs.wait(thread.thread_id, "lead", { input: null, interruptBefore: ["tools"], config })) as Values;
    expect(second.outcome?.stopReasons.map((r) => r.reason)).toEqual(["turn_capped"]);
    expect(toolResults(second)).toEqual(["bash"]);
    expect((await alice.threads.get(thread.thread_id)).status).not.toBe("interrupted");
  });

  it("a thread of another user cannot be resumed (404)", async () => {
    const thread = await alice.threads.create();
    await alice.runs.wait(thread.thread_id, "lead", { input: { messages: NOTE }, interruptBefore: ["tools"] });
    await expect(server.bob.runs.wait(thread.thread_id, "lead", { input: null })).rejects.toMatchObject({ status: 404 });
    expect((await alice.threads.get(thread.thread_id)).status).toBe("interrupted");
    void randomUUID;
  });
});
