import { existsSync, mkdirSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIXTURES, startServe, tempDir, type ServeProcess } from "./serve-process.js";

/**
 * What `/wait` and `/join` answer for each way a run ends, read with the official SDK
 * (`runs.wait`, `runs.join`) from a real `keel serve` (SQLite, scripted model): HTTP 200
 * with the thread's values plus Keel's `outcome` (status@2); a failed run adds LangGraph's
 * `__error__: {error, message}` (so `runs.wait` throws); an interrupted run answers its
 * last values. A run blocks in its first bash call while its workspace holds `hold`.
 */
describe("keel serve: /wait and /join answers per outcome, through the SDK", () => {
  let dir: string;
  let server: ServeProcess;
  let client: Client;
  const workspace = (threadId: string) => join(dir, "db", "keel.db.workspaces", threadId);
  const hold = (threadId: string) => {
    mkdirSync(workspace(threadId), { recursive: true });
    writeFileSync(join(workspace(threadId), "hold"), "");
  };
  const release = (threadId: string) => unlinkSync(join(workspace(threadId), "hold"));

  beforeAll(async () => {
    dir = tempDir("keel-e2e-outcomes-");
    server = await startServe(["--port", "0", "--db", `sqlite:${join(dir, "db", "keel.db")}`, "--model", `scripted:${join(FIXTURES, "steps.scenario.json")}`], {
      cwd: dir,
      env: { KEEL_API_KEYS: "key-o:olga" },
    });
    client = new Client({ apiUrl: server.url, apiKey: "key-o", callerOptions: { maxRetries: 0 } });
  }, 40_000);

  afterAll(async () => {
    await server?.stop("SIGTERM");
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function until(check: () => Promise<boolean>, what: string): Promise<void> {
    for (let i = 0; i < 300; i++) {
      if (await check()) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`timed out waiting for ${what}`);
  }

  it("a succeeded run: its values plus `outcome` succeeded, no `__error__`", async () => {
    const thread = await client.threads.create();
    const values = (await client.runs.wait(thread.thread_id, "lead", { input: "Write a note." })) as Record<string, unknown>;
    expect(values.__error__).toBeUndefined();
    expect(values.outcome).toMatchObject({ contract: "status", version: 2, status: "succeeded", text: "Done: note.md written." });
    expect((values.messages as unknown[]).length).toBeGreaterThan(1);
  });

  it("a failed run: `runs.wait` throws from `__error__`; `runs.join` gets 200 with `__error__` and `outcome` failed", async () => {
    const thread = await client.threads.create();
    // Not a string and not messages: the run ends `failed` with KEEL_ERR_RUN_INPUT_INVALID.
    await expect(client.runs.wait(thread.thread_id, "lead", { input: { bogus: 1 } })).rejects.toThrow(/KEEL_ERR_RUN_INPUT_INVALID/);
    const [run] = await client.runs.list(thread.thread_id);
    expect(run!.status).toBe("error");
    const joined = (await client.runs.join(thread.thread_id, run!.run_id)) as Record<string, unknown>;
    expect(joined.__error__).toEqual({ error: "KEEL_ERR_RUN_INPUT_INVALID", message: expect.stringContaining("input") });
    expect(joined.outcome).toMatchObject({ status: "failed", error: { type: "KEEL_ERR_RUN_INPUT_INVALID" } });
    // Without raising, `runs.wait` answers the same body.
    const thread2 = await client.threads.create();
    const waited = (await client.runs.wait(thread2.thread_id, "lead", { input: { bogus: 1 }, raiseError: false })) as Record<string, unknown>;
    expect(waited.__error__).toMatchObject({ error: "KEEL_ERR_RUN_INPUT_INVALID" });
    expect(waited.outcome).toMatchObject({ status: "failed" });
  });

  it("an interrupted run: `runs.join` answers its last values with `outcome` cancelled and no `__error__`", async () => {
    const thread = await client.threads.create();
    hold(thread.thread_id);
    const run = await client.runs.create(thread.thread_id, "lead", { input: "Write a note." });
    // In its bash call: the model's first turn (the tool call) is checkpointed by then.
    await until(async () => ((await client.threads.getState(thread.thread_id)).values as { messages?: unknown[] } | null)?.messages?.length === 2, "the run to reach its bash call");
    await client.runs.cancel(thread.thread_id, run.run_id, true);
    const joined = (await client.runs.join(thread.thread_id, run.run_id)) as Record<string, unknown>;
    expect(joined.__error__).toBeUndefined();
    expect(joined.outcome).toMatchObject({ status: "cancelled" });
    // The last values: at least the input message the run started from.
    expect((joined.messages as Array<{ content: string }>).map((m) => m.content)).toEqual(["Write a note.", "Checking whether I must wait."]);
    expect((await client.runs.get(thread.thread_id, run.run_id)).status).toBe("interrupted");
  });
});

describe("keel serve: a /wait open when the worker gets SIGTERM still gets its run's answer", () => {
  it("answers a run that finishes within the grace period, and one interrupted at its end, before the process exits 0", async () => {
    const dir = tempDir("keel-e2e-wait-sigterm-");
    const server = await startServe(["--port", "0", "--db", `sqlite:${join(dir, "db", "keel.db")}`, "--model", `scripted:${join(FIXTURES, "steps.scenario.json")}`], {
      cwd: dir,
      // A short grace period (test-only knob; 10 s by default) so the interrupted run's answer comes soon.
      env: { KEEL_API_KEYS: "key-s:sam", KEEL_SHUTDOWN_GRACE_MS: "2000" },
    });
    try {
      const client = new Client({ apiUrl: server.url, apiKey: "key-s", callerOptions: { maxRetries: 0 } });
      const workspace = (threadId: string) => join(dir, "db", "keel.db.workspaces", threadId);
      const [finishes, interrupted] = [await client.threads.create(), await client.threads.create()];
      for (const thread of [finishes, interrupted]) {
        mkdirSync(workspace(thread.thread_id), { recursive: true });
        writeFileSync(join(workspace(thread.thread_id), "hold"), "");
      }
      const waits = [finishes, interrupted].map((thread) => client.runs.wait(thread.thread_id, "lead", { input: "Write a note.", raiseError: false }) as Promise<Record<string, unknown>>);
      for (const thread of [finishes, interrupted]) {
        await (async () => {
          for (let i = 0; i < 300 && (await client.runs.list(thread.thread_id))[0]?.status !== "running"; i++) await new Promise((resolve) => setTimeout(resolve, 50));
        })();
      }
      const exited = server.stop("SIGTERM");
      // The shutdown lets running runs finish for the grace period: this one finishes now.
      unlinkSync(join(workspace(finishes.thread_id), "hold"));
      const [done, cut] = await Promise.all(waits);
      expect(done.outcome).toMatchObject({ status: "succeeded" });
      expect(done.__error__).toBeUndefined();
      expect(cut.outcome).toMatchObject({ status: "cancelled", text: expect.stringContaining("shut down") });
      expect(cut.__error__).toBeUndefined();
      expect((await exited).code).toBe(0);
      expect(existsSync(join(workspace(finishes.thread_id), "note.md"))).toBe(true);
    } finally {
      await server.stop("SIGKILL");
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
