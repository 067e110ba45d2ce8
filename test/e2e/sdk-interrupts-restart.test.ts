/**
 * A pause survives the server: a real `keel serve` process on SQLite pauses a run before
 * its tools step (interrupt_before), stops, and a new `keel serve` process on the same
 * database resumes the thread through the SDK (`command: { resume }`): the approved tool
 * runs there, the run ends `succeeded`, and the thread is idle again.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, describe, expect, it } from "vitest";
import { FIXTURES, startServe, tempDir, type ServeProcess } from "./serve-process.js";

type Values = { messages?: Array<{ type: string; name?: string }>; outcome?: { status: string; primaryStopReason?: string } };

describe("interrupts across a keel serve restart (SQLite)", () => {
  const dir = tempDir("keel-e2e-interrupts-");
  const args = ["--port", "0", "--db", `sqlite:${join(dir, "db", "keel.db")}`, "--model", `scripted:${join(FIXTURES, "steps.scenario.json")}`];
  const options = { cwd: dir, env: { KEEL_API_KEYS: "key-i:ines" } };
  let server: ServeProcess | undefined;

  afterAll(async () => {
    await server?.stop("SIGTERM");
    rmSync(dir, { recursive: true, force: true });
  });

  it("pauses in one process and resumes in the next", async () => {
    server = await startServe(args, options);
    let client = new Client({ apiUrl: server.url, apiKey: "key-i", callerOptions: { maxRetries: 0 } });
    const thread = await client.threads.create();
    const paused = (await client.runs.wait(thread.thread_id, "lead", { input: "Write a note.", interruptBefore: ["tools"] })) as Values;
    expect(paused.outcome).toMatchObject({ status: "partial", primaryStopReason: "awaiting_input" });
    expect(paused.messages!.filter((m) => m.type === "tool")).toEqual([]);
    await server.stop("SIGTERM");

    server = await startServe(args, options);
    client = new Client({ apiUrl: server.url, apiKey: "key-i", callerOptions: { maxRetries: 0 } });
    expect((await client.threads.get(thread.thread_id)).status).toBe("interrupted");
    expect((await client.threads.getState(thread.thread_id)).next).toEqual(["tools"]);
    const done = (await client.runs.wait(thread.thread_id, "lead", { command: { resume: "approved" } })) as Values;
    expect(done.messages!.filter((m) => m.type === "tool").map((m) => m.name)).toEqual(["bash", "write_file"]);
    expect(done.outcome?.status).toBe("succeeded");
    expect((await client.threads.get(thread.thread_id)).status).toBe("idle");
  }, 30_000);
});
