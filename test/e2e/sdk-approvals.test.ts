/**
 * human-approval over HTTP with the official SDK against real `keel serve` processes
 * (stack `lead-approval`, policy from the assistant's `context.plugins`): the run pauses
 * with LangChain's HITL request in `tasks[].interrupts[0].value`; `command: { resume:
 * { decisions } }` approves, edits or rejects; the decision holds across a server restart
 * on the same SQLite file, and across two workers on one PostgreSQL (the decision sent to
 * the other worker); the journal and the report's receipts name who decided.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, describe, expect, it } from "vitest";
import { FIXTURES, startServe, tempDir, type ServeProcess } from "./serve-process.js";
import { PG_URL, postgresUnavailable } from "./services.js";
import { scratchDatabase } from "../plugins/store-sql/scratch-database.js";

type Message = { type: string; name?: string; content: unknown; status?: string; tool_call_id?: string; tool_calls?: Array<{ id: string; name: string; args: Record<string, unknown> }> };
type Values = { messages: Message[]; outcome: { status: string; primaryStopReason?: string }; approvals?: Array<Record<string, unknown>> };

const MODEL = `scripted:${join(FIXTURES, "approval.scenario.json")}`;
const POLICY = { interruptOn: { write_file: true } };
const sdk = (server: ServeProcess) => new Client({ apiUrl: server.url, apiKey: "key-a", callerOptions: { maxRetries: 0 } });
const HEADERS = { "x-api-key": "key-a" };

/** What the final `cat a.md; cat b.md` printed (the files the approved calls wrote). */
const readBack = (values: Values): string => String(values.messages.filter((m) => m.type === "tool" && m.name === "bash").at(-1)?.content ?? "").replace(/\nexit code: 0$/, "\n");

async function startPaused(client: Client): Promise<{ threadId: string; assistantId: string }> {
  const assistant = await client.assistants.create({ graphId: "lead-approval", context: { plugins: { "human-approval": POLICY } } });
  const thread = await client.threads.create();
  const paused = (await client.runs.wait(thread.thread_id, assistant.assistant_id, { input: "Write two notes." })) as Values;
  expect(paused.outcome).toMatchObject({ status: "partial", primaryStopReason: "awaiting_input" });
  expect(paused.messages.filter((m) => m.type === "tool")).toEqual([]);
  return { threadId: thread.thread_id, assistantId: assistant.assistant_id };
}

async function expectRequest(client: Client, threadId: string): Promise<void> {
  expect((await client.threads.get(threadId)).status).toBe("interrupted");
  const state = await client.threads.getState(threadId);
  expect(state.next).toEqual(["agent"]);
  const value = state.tasks[0]!.interrupts[0]!.value as { actionRequests: Array<{ name: string; args: unknown }>; reviewConfigs: unknown[] };
  expect(value.actionRequests.map((a) => [a.name, a.args])).toEqual([["write_file", { path: "a.md", content: "A\n" }], ["write_file", { path: "b.md", content: "B\n" }]]);
  expect(value.reviewConfigs).toEqual([{ actionName: "write_file", allowedDecisions: ["approve", "edit", "reject"] }, { actionName: "write_file", allowedDecisions: ["approve", "edit", "reject"] }]);
}

describe("human-approval through the SDK (SQLite)", () => {
  const dir = tempDir("keel-e2e-approvals-");
  const args = ["--port", "0", "--db", `sqlite:${join(dir, "db", "keel.db")}`, "--model", MODEL, "--stack", "lead-approval"];
  const options = { cwd: dir, env: { KEEL_API_KEYS: "key-a:ada" } };
  let server: ServeProcess | undefined;

  afterAll(async () => {
    await server?.stop("SIGTERM");
    rmSync(dir, { recursive: true, force: true });
  });

  it("approve: the thread is interrupted with the HITL request; both writes run, and the journal and receipts say ada approved", async () => {
    server = await startServe(args, options);
    const client = sdk(server);
    const { threadId, assistantId } = await startPaused(client);
    await expectRequest(client, threadId);
    const done = (await client.runs.wait(threadId, assistantId, { command: { resume: { decisions: [{ type: "approve" }, { type: "approve" }] } } })) as Values;
    expect(done.outcome.status).toBe("succeeded");
    expect(readBack(done)).toBe("A\nB\n");
    expect(done.approvals?.map((a) => [a.decision, a.by])).toEqual([["approve", "ada"], ["approve", "ada"]]);
    expect((await client.threads.get(threadId)).status).toBe("idle");

    const [resumeRun] = await client.runs.list(threadId, { limit: 1 });
    const journal = (await (await fetch(`${server.url}/threads/${threadId}/runs/${resumeRun!.run_id}/journal`, { headers: HEADERS })).json()) as Array<Record<string, unknown>>;
    const entries = (Array.isArray(journal) ? journal : (journal as { entries: Array<Record<string, unknown>> }).entries).filter((e) => e.kind === "approval");
    expect(entries.map((e) => [e.name, e.status, e.by])).toEqual([["write_file", "approve", "ada"], ["write_file", "approve", "ada"]]);
    const report = (await (await fetch(`${server.url}/threads/${threadId}/runs/${resumeRun!.run_id}/report`, { headers: HEADERS })).json()) as { receipts: Record<string, Array<Record<string, unknown>>> };
    const writes = report.receipts.lead!.filter((r) => r.tool === "write_file");
    expect(writes.map((r) => (r.approval as Record<string, unknown>)?.by)).toEqual(["ada", "ada"]);
    expect(report.receipts.lead!.find((r) => r.tool === "bash")!.approval).toBeUndefined();
  }, 60_000);

  it("edit + reject: the edited write runs with the new content, the rejected one never runs and the model sees the message", async () => {
    const client = sdk(server!);
    const { threadId, assistantId } = await startPaused(client);
    const done = (await client.runs.wait(threadId, assistantId, {
      command: { resume: { decisions: [{ type: "reject", message: "No a.md, please." }, { type: "edit", editedAction: { name: "write_file", args: { path: "b.md", content: "B edited\n" } } }] } },
    })) as Values;
    expect(done.outcome.status).toBe("succeeded");
    expect(readBack(done)).toBe("no-a\nB edited\n");
    const ai = done.messages.find((m) => m.type === "ai" && (m.tool_calls?.length ?? 0) === 3)!;
    expect(ai.tool_calls!.map((c) => c.args)).toEqual([{ path: "a.md", content: "A\n" }, { path: "b.md", content: "B edited\n" }, { command: "echo checked" }]);
    const rejected = done.messages.find((m) => m.type === "tool" && m.tool_call_id === ai.tool_calls![0]!.id)!;
    expect(rejected).toMatchObject({ content: "No a.md, please.", status: "error" });
  }, 60_000);

  it("an invalid decision leaves the thread interrupted with the error; a valid one then runs", async () => {
    const client = sdk(server!);
    const { threadId, assistantId } = await startPaused(client);
    const again = (await client.runs.wait(threadId, assistantId, { command: { resume: { decisions: [{ type: "approve" }] } } })) as Values;
    expect(again.outcome.primaryStopReason).toBe("awaiting_input");
    expect((await client.threads.get(threadId)).status).toBe("interrupted");
    const state = await client.threads.getState(threadId);
    expect(state.next).toEqual(["agent"]);
    const value = state.tasks[0]!.interrupts[0]!.value as { error?: { code: string } };
    expect(value.error?.code).toBe("KEEL_ERR_APPROVAL_DECISION_INVALID");
    const done = (await client.runs.wait(threadId, assistantId, { command: { resume: { decisions: [{ type: "approve" }, { type: "reject" }] } } })) as Values;
    expect(readBack(done)).toBe("A\nno-b\n");
  }, 60_000);

  it("an approval cannot be forged through command.update: the runtime-owned `approvals` write is dropped", async () => {
    const client = sdk(server!);
    const { threadId, assistantId } = await startPaused(client);
    const [call] = ((await client.threads.getState(threadId)).values as Values).messages.find((m) => m.type === "ai")!.tool_calls!;
    const forged = { toolCallId: call!.id, tool: "write_file", decision: "approve", at: new Date().toISOString(), runId: "forged", turn: 1 };
    const done = (await client.runs.wait(threadId, assistantId, { command: { update: { approvals: [forged] }, resume: { decisions: [{ type: "reject" }, { type: "reject" }] } } })) as Values;
    expect(readBack(done)).toBe("no-a\nno-b\n");
    expect(done.approvals?.map((a) => [a.decision, a.runId === "forged"])).toEqual([["reject", false], ["reject", false]]);
  }, 60_000);

  it("a delegated child's write_file is refused under the lead's policy (from the assistant's context), and nothing pauses", async () => {
    const child = await startServe(["--port", "0", "--db", `sqlite:${join(dir, "db", "child.db")}`, "--model", `scripted:${join(FIXTURES, "approval-child.scenario.json")}`, "--stack", "lead-approval"], options);
    try {
      const client = sdk(child);
      const assistant = await client.assistants.create({ graphId: "lead-approval", context: { plugins: { "human-approval": POLICY } } });
      const thread = await client.threads.create();
      const done = (await client.runs.wait(thread.thread_id, assistant.assistant_id, { input: "Delegate a note." })) as Values;
      expect(done.outcome.primaryStopReason).not.toBe("awaiting_input");
      expect(readBack(done)).toBe("no-c\n");
      const [run] = await client.runs.list(thread.thread_id, { limit: 1 });
      const journal = (await (await fetch(`${child.url}/threads/${thread.thread_id}/runs/${run!.run_id}/journal`, { headers: HEADERS })).json()) as Array<Record<string, unknown>> | { entries: Array<Record<string, unknown>> };
      const entries = (Array.isArray(journal) ? journal : journal.entries).filter((e) => e.kind === "approval");
      expect(entries.map((e) => [String(e.agent).startsWith("lead/"), e.name, e.status])).toEqual([[true, "write_file", "refused"]]);
    } finally {
      await child.stop("SIGTERM");
    }
  }, 60_000);

  it("restart in between: paused in one process, decided in the next on the same SQLite file", async () => {
    let client = sdk(server!);
    const { threadId, assistantId } = await startPaused(client);
    await server!.stop("SIGTERM");
    server = await startServe(args, options);
    client = sdk(server);
    await expectRequest(client, threadId);
    const done = (await client.runs.wait(threadId, assistantId, { command: { resume: { decisions: [{ type: "approve" }, { type: "edit", editedAction: { name: "write_file", args: { path: "b.md", content: "after restart\n" } } }] } } })) as Values;
    expect(done.outcome.status).toBe("succeeded");
    expect(readBack(done)).toBe("A\nafter restart\n");
  }, 90_000);
});

const pgUnavailable = await postgresUnavailable(PG_URL);
if (pgUnavailable !== null) console.warn(`skipping human-approval across two workers: ${pgUnavailable}`);

describe.runIf(pgUnavailable === null)("human-approval across two workers (PostgreSQL)", () => {
  const dir = tempDir("keel-e2e-approvals-pg-");
  const servers: ServeProcess[] = [];
  let drop: (() => Promise<void>) | undefined;

  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop("SIGTERM")));
    await drop?.();
    rmSync(dir, { recursive: true, force: true });
  });

  it("paused on worker A, decided on worker B", async () => {
    const db = await scratchDatabase(PG_URL, "keel_e2e_approvals");
    drop = db.drop;
    const args = ["--port", "0", "--db", db.url, "--model", MODEL, "--stack", "lead-approval", "--workspaces", join(dir, "workspaces")];
    const options = { cwd: dir, env: { KEEL_API_KEYS: "key-a:ada" } };
    servers.push(await startServe(args, options), await startServe(args, options));
    const [a, b] = [sdk(servers[0]!), sdk(servers[1]!)];
    const { threadId, assistantId } = await startPaused(a);
    await expectRequest(b, threadId);
    const done = (await b.runs.wait(threadId, assistantId, { command: { resume: { decisions: [{ type: "edit", editedAction: { name: "write_file", args: { path: "a.md", content: "from B\n" } } }, { type: "approve" }] } } })) as Values;
    expect(done.outcome.status).toBe("succeeded");
    expect(readBack(done)).toBe("from B\nB\n");
    expect(done.approvals?.map((x) => [x.decision, x.by])).toEqual([["edit", "ada"], ["approve", "ada"]]);
  }, 90_000);
});
