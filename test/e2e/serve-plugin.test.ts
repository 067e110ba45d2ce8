import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TAP_BRIDGE } from "../fixtures/third-party-bridge/index.js";
import { FIXTURES, startServe, tempDir, type ServeProcess } from "./serve-process.js";

/** `keel serve --plugin FILE` with a third-party stream bridge: every run's stream goes through it. */
describe("keel serve --plugin with a third-party stream-bridge", () => {
  let dir: string;
  let server: ServeProcess;
  let tapFile: string;

  beforeAll(async () => {
    dir = tempDir("keel-e2e-plugin-");
    tapFile = join(dir, "tap.log");
    server = await startServe(["--port", "0", "--db", `sqlite:${join(dir, "keel.db")}`, "--model", `scripted:${join(FIXTURES, "steps.scenario.json")}`, "--plugin", TAP_BRIDGE], {
      cwd: dir,
      env: { KEEL_TAP_FILE: tapFile },
    });
  }, 40_000);

  afterAll(async () => {
    await server?.stop("SIGTERM");
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("streams a run to an SDK client through the plugin's bridge", async () => {
    const client = new Client({ apiUrl: server.url, callerOptions: { maxRetries: 0 } });
    const thread = await client.threads.create();
    const parts: Array<{ event: string; id?: string }> = [];
    for await (const part of client.runs.stream(thread.thread_id, "lead", { input: { messages: [{ role: "user", content: "Write a note." }] } })) {
      parts.push(part as { event: string; id?: string });
    }
    expect(parts.at(-1)!.event).toBe("end");
    const runId = (parts[0] as unknown as { data: { run_id: string } }).data.run_id;
    const tapped = readFileSync(tapFile, "utf8").trim().split("\n").map((line) => line.split(" "));
    const ofRun = tapped.filter(([id]) => id === runId);
    // Every event the client saw was published through the tap, in the same order with the same ids.
    expect(ofRun.map(([, id, event]) => `${id} ${event}`)).toEqual(parts.map((p) => `${p.id} ${p.event}`));
  }, 30_000);
});
