import { rmSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIXTURES, startServe, tempDir, type ServeProcess } from "./serve-process.js";
import { startWebhookReceiver } from "../plugins/gateway/runs-api-harness.js";

/**
 * The Runs API (docs/http.md, "Runs API") against a real `keel serve` on
 * SQLite with a scripted model, through `@langchain/langgraph-sdk`'s Client: threadless
 * runs, batches, `config.recursion_limit` as the turn cap, `after_seconds` with
 * `cancelMany`, `runs.delete`, and a webhook to a real local server (`--webhook-host`).
 */
describe("keel serve: the Runs API through the SDK", () => {
  let dir: string;
  let server: ServeProcess;
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
  let alice: Client;

  beforeAll(async () => {
    dir = tempDir("keel-e2e-sdk-runs-");
    receiver = await startWebhookReceiver();
    server = await startServe(["--port", "0", "--db", `sqlite:${join(dir, "keel.db")}`, "--model", `scripted:${join(FIXTURES, "steps.scenario.json")}`, "--webhook-host", "127.0.0.1"], {
      cwd: dir,
      env: { KEEL_API_KEYS: "key-alice:alice" },
    });
    alice = new Client({ apiUrl: server.url, apiKey: "key-alice", callerOptions: { maxRetries: 0 } });
  }, 40_000);

  afterAll(async () => {
    const exit = await server?.stop("SIGTERM");
    await receiver?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
    expect(exit?.code).toBe(0);
  });

  const input = { messages: [{ role: "user", content: "Write a note." }] };

  it("runs.wait(null) with onCompletion keep answers the values; the run is then deleted with runs.delete", async () => {
    let created: { run_id: string; thread_id?: string } | undefined;
    const values = (await alice.runs.wait(null, "lead", { input, onCompletion: "keep", onRunCreated: (meta) => (created = meta) })) as { messages: { content: string }[]; outcome: { status: string } };
    expect(values.outcome.status).toBe("succeeded");
    expect(values.messages.at(-1)!.content).toBe("Done: note.md written.");
    const threadId = created!.thread_id!;
    expect((await alice.runs.get(threadId, created!.run_id)).status).toBe("success");
    await alice.runs.delete(threadId, created!.run_id);
    await expect(alice.runs.get(threadId, created!.run_id)).rejects.toMatchObject({ status: 404 });
    expect(await alice.runs.list(threadId)).toEqual([]);
  });

  it("runs.stream(null) runs on a temporary thread that is deleted (with its runs) once the run ended (onCompletion delete, the default)", async () => {
    let created: { run_id: string; thread_id?: string } | undefined;
    const events: string[] = [];
    for await (const part of alice.runs.stream(null, "lead", { input, onRunCreated: (meta) => (created = meta) })) events.push(part.event);
    expect(events[0]).toBe("metadata");
    expect(events.at(-1)).toBe("end");
    let gone = false;
    for (let i = 0; i < 200 && !gone; i++) {
      gone = await alice.threads.get(created!.thread_id!).then(
        () => false,
        (error: { status?: number }) => error.status === 404,
      );
      if (!gone) await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(gone).toBe(true);
    await expect(alice.runs.get(created!.thread_id!, created!.run_id)).rejects.toMatchObject({ status: 404 });
  });

  it("config.recursion_limit 12 allows one turn: the run ends with a turn_capped forced answer, not a recursion error", async () => {
    const thread = await alice.threads.create();
    const values = (await alice.runs.wait(thread.thread_id, "lead", { input, config: { recursion_limit: 12 } })) as { outcome: { status: string; stopReasons: { reason: string }[] } };
    expect(values).not.toHaveProperty("__error__");
    expect(values.outcome.stopReasons.map((r) => r.reason)).toContain("turn_capped");
    const [run] = await alice.runs.list(thread.thread_id);
    expect((run!.kwargs as { max_turns: number }).max_turns).toBe(1);
  });

  it("runs.createBatch starts threadless runs; afterSeconds keeps a run pending until runs.cancelMany({ status: pending }) cancels it", async () => {
    const batch = await alice.runs.createBatch([{ assistantId: "lead", input, on_completion: "keep" } as never]);
    expect(batch).toHaveLength(1);
    const done = (await alice.runs.join(batch[0]!.thread_id, batch[0]!.run_id)) as { outcome: { status: string } };
    expect(done.outcome.status).toBe("succeeded");

    const thread = await alice.threads.create();
    const later = await alice.runs.create(thread.thread_id, "lead", { input, afterSeconds: 3600 });
    expect(later.status).toBe("pending");
    expect((await alice.runs.get(thread.thread_id, later.run_id)).status).toBe("pending");
    await alice.runs.cancelMany({ status: "pending" });
    expect((await alice.runs.get(thread.thread_id, later.run_id)).status).toBe("interrupted");
  });

  it("POSTs the finished run to its webhook on an allowed host", async () => {
    const thread = await alice.threads.create();
    const run = await alice.runs.create(thread.thread_id, "lead", { input, webhook: receiver.url });
    await alice.runs.join(thread.thread_id, run.run_id);
    for (let i = 0; i < 200 && !receiver.received.some((r) => r.body.run_id === run.run_id); i++) await new Promise((resolve) => setTimeout(resolve, 25));
    const hook = receiver.received.find((r) => r.body.run_id === run.run_id)!;
    expect(hook.body).toMatchObject({ thread_id: thread.thread_id, status: "success", outcome: { status: "succeeded" } });
    expect((hook.body.values as { messages: unknown[] }).messages.length).toBeGreaterThan(0);
  });
});
