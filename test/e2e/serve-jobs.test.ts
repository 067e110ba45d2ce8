/**
 * `keel serve --jobs N` and the claim queue across processes on one SQLite file: worker A
 * (`--jobs 1`, a model that hangs) runs one run and leaves the next pending, then dies
 * (SIGKILL); worker B, started later on the same file, reaps A's run once its lease
 * expired (small test-only lease timings) and claims and finishes the pending one. (A
 * graceful stop takes the 10 s grace period here; the in-process suite,
 * test/runs/claim-queue-managers.ts, covers it.)
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIXTURES, startServe, tempDir, type ServeProcess } from "./serve-process.js";

const dir = tempDir("keel-e2e-jobs-");
const started: ServeProcess[] = [];
afterAll(async () => {
  await Promise.all(started.map((s) => s.stop("SIGTERM")));
  rmSync(dir, { recursive: true, force: true });
});

const JSON_HEADERS = { "content-type": "application/json" };
const db = `sqlite:${join(dir, "keel.db")}`;
const LEASES = { KEEL_LEASE_TTL_MS: "1500", KEEL_HEARTBEAT_MS: "300", KEEL_REAPER_MS: "300" };
const serve = async (model: string, extra: string[] = []) => {
  const server = await startServe(["--port", "0", "--db", db, "--model", `scripted:${join(FIXTURES, model)}`, ...extra], { cwd: dir, env: LEASES });
  started.push(server);
  return server;
};
const newThread = async (base: string) => ((await (await fetch(`${base}/threads`, { method: "POST", headers: JSON_HEADERS, body: "{}" })).json()) as { thread_id: string }).thread_id;
const createRun = async (base: string, threadId: string) =>
  (await (await fetch(`${base}/threads/${threadId}/runs`, { method: "POST", headers: JSON_HEADERS, body: JSON.stringify({ assistant_id: "lead", input: "Write a note." }) })).json()) as { run_id: string; status: string };
const runStatus = async (base: string, threadId: string, runId: string) => ((await (await fetch(`${base}/threads/${threadId}/runs/${runId}`)).json()) as { status: string }).status;

async function until(check: () => Promise<boolean>, what: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

// Server starts take seconds on a loaded machine: they happen in hooks (60 s), the tests only act and check.
describe("keel serve --jobs and the claim queue across processes", () => {
  let a: ServeProcess;
  let t2 = "";
  let first = { run_id: "", status: "" };
  let t1 = "";
  let second = { run_id: "", status: "" };
  beforeAll(async () => {
    a = await serve("hang.scenario.json", ["--jobs", "1"]);
  }, 60_000);

  it("a worker with --jobs 1 runs one run and leaves the second pending", async () => {
    [t1, t2] = [await newThread(a.url), await newThread(a.url)];
    first = await createRun(a.url, t1);
    second = await createRun(a.url, t2);
    expect(first.status).toBe("running");
    expect(second.status).toBe("pending"); // the one slot is taken by the hanging run
    expect(await runStatus(a.url, t2, second.run_id)).toBe("pending");
    expect((await a.stop("SIGKILL")).signal).toBe("SIGKILL"); // the worker dies with both
  });

  describe("after that worker died", () => {
    let b: ServeProcess;
    beforeAll(async () => {
      b = await serve("steps.scenario.json");
    }, 60_000);

    it("another worker reaps its running run and claims and finishes the pending one", async () => {
      expect(second.run_id).not.toBe("");
      await until(async () => (await runStatus(b.url, t2, second.run_id)) === "success", "worker B to claim and finish the pending run");
      expect(await runStatus(b.url, t1, first.run_id)).toBe("error"); // reaped: lease_expired
    });
  });
});
