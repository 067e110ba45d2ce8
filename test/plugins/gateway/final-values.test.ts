import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ALICE, createThread, startHarness, type Harness } from "./harness.js";

/**
 * `/wait` and `/join` answer 200 however the run ended, as the LangGraph Agent Server does:
 * the values plus Keel's `outcome`; `__error__` only for a failure. (With the real SDK and
 * process: test/e2e/sdk-outcomes.test.ts.)
 */
describe("gateway /wait and /join bodies", () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness();
  });
  afterEach(async () => h.close());
  const json = { ...ALICE, "content-type": "application/json" };

  async function until(check: () => boolean, what: string): Promise<void> {
    for (let i = 0; i < 400 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
    if (!check()) throw new Error(`timed out waiting for ${what}`);
  }

  it("a succeeded run: values plus outcome, no __error__", async () => {
    const threadId = await createThread(h.app);
    const response = await h.app.inject({ method: "POST", url: `/threads/${threadId}/runs/wait`, headers: json, payload: { assistant_id: "lead", input: { events: 1 } } });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.turns).toBe(1);
    expect(body.outcome).toMatchObject({ contract: "status", version: 2, status: "succeeded" });
    expect(body.__error__).toBeUndefined();
  });

  it("a failed run: 200 with __error__ and outcome failed, on /wait and /join", async () => {
    const threadId = await createThread(h.app);
    const waited = await h.app.inject({ method: "POST", url: `/threads/${threadId}/runs/wait`, headers: json, payload: { assistant_id: "lead", input: "fail" } });
    expect(waited.statusCode).toBe(200);
    expect(waited.json().__error__).toEqual({ error: "executor_failed", message: "scripted failure" });
    expect(waited.json().outcome).toMatchObject({ status: "failed", error: { type: "executor_failed" } });
    const runId = waited.headers["content-location"]!.toString().split("/").at(-1)!;
    const joined = await h.app.inject({ method: "GET", url: `/threads/${threadId}/runs/${runId}/join`, headers: ALICE });
    expect(joined.statusCode).toBe(200);
    expect(joined.json()).toEqual(waited.json());
  });

  it("an interrupted run: its last values plus outcome cancelled, no __error__", async () => {
    const threadId = await createThread(h.app);
    const first = (await h.app.inject({ method: "POST", url: `/threads/${threadId}/runs/wait`, headers: json, payload: { assistant_id: "lead", input: { events: 3 } } })).json();
    expect(first.turns).toBe(3);
    const created = (await h.app.inject({ method: "POST", url: `/threads/${threadId}/runs`, headers: json, payload: { assistant_id: "lead", input: "hang" } })).json();
    await until(() => h.executor.isWaiting(created.run_id), "the run to start");
    const joining = h.app.inject({ method: "GET", url: `/threads/${threadId}/runs/${created.run_id}/join`, headers: ALICE });
    expect((await h.app.inject({ method: "POST", url: `/threads/${threadId}/runs/${created.run_id}/cancel?wait=1`, headers: ALICE })).statusCode).toBe(204);
    const joined = await joining;
    expect(joined.statusCode).toBe(200);
    expect(joined.json().outcome).toMatchObject({ status: "cancelled" });
    expect(joined.json().__error__).toBeUndefined();
    // The scripted executor stores its values even when aborted; the answer is what the thread holds.
    expect(joined.json().messages).toEqual([{ type: "ai", content: `done ${created.run_id}` }]);
  });
});
