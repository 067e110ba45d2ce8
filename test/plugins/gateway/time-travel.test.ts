/**
 * Time travel through the SDK (docs/http.md, "Time travel"): a scripted run
 * with a tool call (`write_file`), its history, an update at the checkpoint before the tool
 * ran (a fork, as `tools` and as `agent`), runs continuing the fork (from the head and from
 * `checkpoint_id`), the old branch still in the history, and what a fork says about the
 * thread's workspace files (`keel_workspace: "not_restored"`, and that it is true). On
 * memory (MemorySaver), SQLite and PostgreSQL in this process, and on a real `keel serve`.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { MemorySaver } from "@langchain/langgraph";
import { Client, type ThreadState } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemoryStreamBridge } from "../../../kernel/runs/memory-bridge.js";
import { MemoryRunStore } from "../../../kernel/runs/memory-store.js";
import { RunManager } from "../../../kernel/runs/run-manager.js";
import { KERNEL_VERSION } from "../../../kernel/version.js";
import { createGateway } from "../../../plugins/gateway/index.js";
import { parseModelSpec } from "../../../tools/serve/model-spec.js";
import { loadRunModels } from "../../../tools/serve/run-models.js";
import { createServeExecutor } from "../../../tools/serve/serve-executor.js";
import { resolveServeOptions } from "../../../tools/serve/serve-options.js";
import { startServer } from "../../../tools/serve/start-server.js";
import { postgresUnavailable } from "../../e2e/services.js";
import { startServe } from "../../e2e/serve-process.js";
import { scratchDatabase } from "../store-sql/scratch-database.js";

const MODEL = `scripted:${fileURLToPath(new URL("./fixtures/time-travel.scenario.json", import.meta.url))}`;

interface Server {
  client: Client;
  /** The thread's workspace directory. */
  workspace(threadId: string): string;
  close(): Promise<void>;
}

type Message = { type: string; content: unknown; id?: string; tool_calls?: { id: string; name: string; args: unknown }[] };
const messages = (values: unknown) => ((values as { messages?: Message[] }).messages ?? []);
const texts = (values: unknown) => messages(values).map((m) => m.content);
const say = (content: string) => ({ messages: [{ role: "user", content }] });
const id = (state: ThreadState) => state.checkpoint.checkpoint_id!;
const WROTE = /^wrote 13 bytes to note\.md/;

function describeTimeTravel(name: string, open: () => Promise<Server>): void {
  describe(`time travel through the SDK: ${name}`, () => {
    let server: Server;
    let c: Client;
    beforeAll(async () => {
      server = await open();
      c = server.client;
    }, 30_000);
    afterAll(async () => server?.close());

    /** A thread after one scripted run (tool call, tool result, answer) and its history. */
    async function ranThread() {
      const { thread_id } = await c.threads.create();
      const values = await c.runs.wait(thread_id, "lead", { input: say("Write the note.") });
      const history = await c.threads.getHistory(thread_id, { limit: 50 });
      return { thread_id, values, history, beforeTool: history.find((s) => s.next.includes("tools"))! };
    }

    it("getHistory lists every checkpoint newest first with next, tasks, checkpoint, parent_checkpoint, created_at and metadata (source, step, parents), as LangGraph's", async () => {
      const { thread_id, values, history } = await ranThread();
      const [ask, call, result, answer] = texts(values);
      expect([ask, call, answer]).toEqual(["Write the note.", "Writing the note.", "Done: note.md written."]);
      expect(result).toMatch(WROTE);
      // The same sequence LangGraph's server lists for its agent graph (test/differential: "threads.getHistory(id) after a run").
      expect(history.map((s) => [s.metadata?.source, s.metadata?.step, s.next, s.tasks.map((t) => t.name), messages(s.values).length])).toEqual([
        ["loop", 3, [], [], 4],
        ["loop", 2, ["agent"], ["agent"], 3],
        ["loop", 1, ["tools"], ["tools"], 2],
        ["loop", 0, ["agent"], ["agent"], 1],
        ["input", -1, ["__start__"], ["__start__"], 0],
      ]);
      history.forEach((state, i) => {
        expect(state.checkpoint).toMatchObject({ thread_id, checkpoint_ns: "" });
        expect(typeof state.created_at).toBe("string");
        expect(state.metadata?.parents).toEqual({});
        // Each entry's parent is the next older one; the oldest has none.
        expect(state.parent_checkpoint?.checkpoint_id ?? null).toBe(history[i + 1] ? id(history[i + 1]!) : null);
      });
      // A task's result is what its node wrote (the tools step: the tool message), never the loop's own bookkeeping.
      const toolsTask = history[2]!.tasks[0]!;
      expect(messages(toolsTask.result).map((m) => [m.type, m.content])).toEqual([["tool", expect.stringMatching(WROTE)]]);
      for (const state of history) for (const task of state.tasks) expect(Object.keys((task.result ?? {}) as object).filter((k) => k.startsWith("__") && k !== "__start__")).toEqual([]);
    });

    it("updateState as `tools` at the checkpoint before the tool ran forks the thread; runs continue the fork from the head and from checkpoint_id; the old branch stays in history", async () => {
      const { thread_id, beforeTool, history: oldHistory } = await ranThread();
      const callId = messages(beforeTool.values).at(-1)!.tool_calls![0]!.id;
      const written = await c.threads.updateState(thread_id, {
        values: { messages: [{ type: "tool", content: "Skipped: the user wrote the note.", tool_call_id: callId, name: "write_file" }] },
        asNode: "tools",
        checkpointId: id(beforeTool),
      });
      // The fork: a new head whose parent is the checkpoint given, `next` as after the loop's tools.
      const fork = await c.threads.getState(thread_id);
      expect(id(fork)).toBe(written.checkpoint.checkpoint_id);
      expect(fork.parent_checkpoint?.checkpoint_id).toBe(id(beforeTool));
      expect([fork.metadata?.source, fork.metadata?.step, fork.next]).toEqual(["update", 2, ["agent"]]);
      expect(texts(fork.values)).toEqual(["Write the note.", "Writing the note.", "Skipped: the user wrote the note."]);
      const afterFork = await c.threads.getHistory(thread_id, { limit: 50 });
      expect(afterFork.map(id)).toEqual([id(fork), ...oldHistory.map(id)]);

      // A run without checkpoint_id continues the fork (the head).
      const continued = await c.runs.wait(thread_id, "lead", { input: say("Go on.") });
      const branch = texts(continued);
      expect(branch.slice(0, 5)).toEqual(["Write the note.", "Writing the note.", "Skipped: the user wrote the note.", "Go on.", "Writing the note."]);
      // The workspace was not rewound with the checkpoint: the note the old branch wrote is still there, and on
      // this branch no read_file of it happened, so the read-before-write guard refuses the overwrite.
      expect(branch[5]).toMatch(/^write_file refused: `note\.md` already exists and there is no read_file of it/);
      expect(branch.slice(6)).toEqual(["Done: note.md written."]);

      // A run from the fork's checkpoint_id (and from LangGraph's `checkpoint` object) starts there again.
      const again = await c.runs.wait(thread_id, "lead", { input: say("Once more."), checkpointId: id(fork) });
      expect(texts(again).slice(0, 4)).toEqual(["Write the note.", "Writing the note.", "Skipped: the user wrote the note.", "Once more."]);
      const viaObject = await c.runs.wait(thread_id, "lead", { input: say("And again."), checkpoint: { thread_id, checkpoint_ns: "", checkpoint_id: id(fork) } as never });
      expect(texts(viaObject).slice(0, 4)).toEqual(["Write the note.", "Writing the note.", "Skipped: the user wrote the note.", "And again."]);

      // Every branch is in the history: the first run's answer, the fork's continuation, the two runs from the fork.
      const all = await c.threads.getHistory(thread_id, { limit: 100 });
      const toolResult = /^(wrote|write_file refused)/;
      const ends = all.filter((s) => s.next.length === 0 && s.metadata?.source === "loop").map((s) => texts(s.values).filter((t) => typeof t === "string" && !toolResult.test(t)));
      expect(ends).toEqual([
        ["Write the note.", "Writing the note.", "Skipped: the user wrote the note.", "And again.", "Writing the note.", "Done: note.md written."],
        ["Write the note.", "Writing the note.", "Skipped: the user wrote the note.", "Once more.", "Writing the note.", "Done: note.md written."],
        ["Write the note.", "Writing the note.", "Skipped: the user wrote the note.", "Go on.", "Writing the note.", "Done: note.md written."],
        ["Write the note.", "Writing the note.", "Done: note.md written."],
      ]);
      // Each run from checkpoint_id wrote the fork again as the head: `source: "fork"`, naming it, and saying the files were not rewound.
      const forks = all.filter((s) => s.metadata?.source === "fork");
      expect(forks.map((s) => [s.metadata?.keelForkOf, s.metadata?.keel_workspace])).toEqual([
        [id(fork), "not_restored"],
        [id(fork), "not_restored"],
      ]);
    });

    it("updateState as `agent` at that checkpoint replaces the model's message: `next` follows its tool calls, as LangGraph's", async () => {
      const { thread_id, beforeTool } = await ranThread();
      const ai = messages(beforeTool.values).at(-1)!;
      await c.threads.updateState(thread_id, { values: { messages: [{ type: "ai", id: ai.id, content: "I will not write it." }] }, asNode: "agent", checkpointId: id(beforeTool) });
      const answered = await c.threads.getState(thread_id);
      expect([answered.next, answered.parent_checkpoint?.checkpoint_id, texts(answered.values)]).toEqual([[], id(beforeTool), ["Write the note.", "I will not write it."]]);
      const continued = await c.runs.wait(thread_id, "lead", { input: say("Go on.") });
      expect(texts(continued).slice(0, 4)).toEqual(["Write the note.", "I will not write it.", "Go on.", "Writing the note."]);

      // An edited tool call: `next` is the tools step (running it is a resume, `input: null`).
      const edited = await c.threads.updateState(thread_id, {
        values: { messages: [{ type: "ai", id: ai.id, content: "Writing another note.", tool_calls: [{ id: ai.tool_calls![0]!.id, name: "write_file", args: { path: "other.md", content: "x" } }] }] },
        asNode: "agent",
        checkpointId: id(beforeTool),
      });
      const pending = await c.threads.getState(thread_id);
      expect([pending.checkpoint.checkpoint_id, pending.next, pending.tasks.map((t) => t.name)]).toEqual([edited.checkpoint.checkpoint_id, ["tools"], ["tools"]]);
    });

    it("the workspace: a fork says `keel_workspace: \"not_restored\"` and the files are indeed the thread's latest; an update at the head says nothing", async () => {
      const { thread_id, beforeTool } = await ranThread();
      const note = join(server.workspace(thread_id), "note.md");
      expect(readFileSync(note, "utf8")).toBe("first branch\n");
      const atHead = await c.threads.updateState(thread_id, { values: { messages: [{ type: "human", content: "A remark." }] }, asNode: "agent" });
      expect(Object.keys(atHead)).toEqual(["checkpoint"]);
      const atHeadById = await c.threads.updateState(thread_id, { values: { messages: [{ type: "human", content: "Another." }] }, asNode: "agent", checkpointId: atHead.checkpoint.checkpoint_id! });
      expect(Object.keys(atHeadById)).toEqual(["checkpoint"]);

      const fork = await c.threads.updateState(thread_id, { values: { messages: [{ type: "human", content: "Start over." }] }, asNode: "agent", checkpointId: id(beforeTool) });
      expect(fork).toMatchObject({ keel_workspace: "not_restored" });
      // The claim is true: at the checkpoint before the tool ran there was no note; the file the old branch wrote is still there.
      expect(existsSync(note)).toBe(true);
      expect(readFileSync(note, "utf8")).toBe("first branch\n");
    });
  });
}

describeTimeTravel("memory (MemorySaver)", async () => {
  const dir = mkdtempSync(join(tmpdir(), "keel-time-travel-memory-"));
  const workspaces = join(dir, "workspaces");
  const store = new MemoryRunStore();
  const bridge = new MemoryStreamBridge();
  const checkpointer = new MemorySaver();
  const models = await loadRunModels(parseModelSpec(MODEL, dir));
  const executor = await createServeExecutor({ stacks: ["lead"], models, checkpointer, store, workspaceRoot: workspaces, bash: "off", maxTurns: 50 });
  const runs = new RunManager({ store, bridge, executor, runtimeOwnedKeys: executor.runtimeOwnedKeys, log: () => undefined });
  runs.start();
  const app = await createGateway({ deps: { runs, store, bridge, threadState: executor.threadState }, stacks: ["lead"], version: KERNEL_VERSION });
  await app.listen({ host: "127.0.0.1", port: 0 });
  const address = app.server.address();
  const url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  return {
    client: new Client({ apiUrl: url, callerOptions: { maxRetries: 0 } }),
    workspace: (threadId) => join(workspaces, threadId),
    async close() {
      await runs.shutdown();
      await app.close();
      await bridge.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

async function servedInProcess(db: (dir: string) => string, cleanup: () => Promise<void> = async () => undefined): Promise<Server> {
  const dir = mkdtempSync(join(tmpdir(), "keel-time-travel-"));
  const server = await startServer(resolveServeOptions({ port: "0", db: db(dir), model: MODEL }, {}, dir), { version: KERNEL_VERSION, log: () => undefined, cwd: dir });
  return {
    client: new Client({ apiUrl: server.url, callerOptions: { maxRetries: 0 } }),
    workspace: (threadId) => join(server.workspacesDir, threadId),
    async close() {
      await server.close();
      await cleanup();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

describeTimeTravel("SQLite (keel serve's wiring)", () => servedInProcess((dir) => `sqlite:${join(dir, "keel.db")}`));

const PG_URL = process.env.KEEL_TEST_PG_URL ?? "postgres://keel:keel@127.0.0.1:5432/keel";
const skipReason = await postgresUnavailable(PG_URL);
if (skipReason !== null) {
  console.warn(`skipping time travel on PostgreSQL: ${skipReason}`);
  describe.skip(`time travel: PostgreSQL (${skipReason})`, () => it("skipped", () => undefined));
} else {
  describeTimeTravel("PostgreSQL (keel serve's wiring)", async () => {
    const { url, drop } = await scratchDatabase(PG_URL, "keel_time_travel");
    return servedInProcess(() => url, drop);
  });
}

describeTimeTravel("a real `keel serve` process (SQLite)", async () => {
  const dir = mkdtempSync(join(tmpdir(), "keel-time-travel-serve-"));
  const workspaces = join(dir, "workspaces");
  const serve = await startServe(["--port", "0", "--db", `sqlite:${join(dir, "keel.db")}`, "--workspaces", workspaces, "--model", MODEL], { cwd: dir });
  return {
    client: new Client({ apiUrl: serve.url, callerOptions: { maxRetries: 0 } }),
    workspace: (threadId) => join(workspaces, threadId),
    async close() {
      await serve.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
