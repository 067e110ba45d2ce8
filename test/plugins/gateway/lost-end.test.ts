/**
 * Never a hang at the HTTP layer: `/join`, `/wait` and stream rejoins of a run whose record
 * is terminal but whose `end` was lost answer from the record (the run manager's record
 * rechecks, `joinRecheckMs`, short here); while a run is live they keep the connection
 * alive — `: heartbeat` comments on event streams, newlines before the JSON answer of
 * `/wait` and `/join` (as LangGraph's server does).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KeelError } from "../../../kernel/errors.js";
import { MemoryStreamBridge } from "../../../kernel/runs/memory-bridge.js";
import type { PublishOptions, StreamEvent } from "../../../kernel/runs/types.js";
import { ALICE, createThread, parseSse, startHarness, until, type Harness } from "./harness.js";

/** The memory bridge, refusing `end` while told so (Redis at maxmemory, say). */
class RefusingEndBridge extends MemoryStreamBridge {
  refuseEnd = false;
  override async end(runId: string, options?: PublishOptions): Promise<StreamEvent> {
    if (this.refuseEnd) throw new KeelError("KEEL_ERR_STREAM_UNAVAILABLE", "the test bridge refuses `end`");
    return super.end(runId, options);
  }
}

const body = (input: unknown) => ({ assistant_id: "lead", input, on_disconnect: "continue" });

describe("a run whose `end` was lost", () => {
  let h: Harness;
  let bridge: RefusingEndBridge;
  beforeAll(async () => {
    bridge = new RefusingEndBridge();
    h = await startHarness({ bridge, joinRecheckMs: 20, heartbeatMs: 50 });
  });
  afterAll(async () => h.close());

  async function lostEndRun(): Promise<{ threadId: string; runId: string }> {
    const threadId = await createThread(h.app);
    const run = (await h.app.inject({ method: "POST", url: `/threads/${threadId}/runs`, headers: ALICE, payload: body("gate") })).json();
    await until(() => h.executor.isWaiting(run.run_id), "the run started");
    bridge.refuseEnd = true;
    h.executor.release(run.run_id);
    await until(async () => (await h.store.getRun(run.run_id))?.status === "success", "the terminal record");
    expect((await h.bridge.read(run.run_id)).map((e) => e.event)).not.toContain("end");
    return { threadId, runId: run.run_id };
  }

  it("GET …/join answers the final values from the record", async () => {
    const { threadId, runId } = await lostEndRun();
    const joined = await h.app.inject({ method: "GET", url: `/threads/${threadId}/runs/${runId}/join`, headers: ALICE });
    expect(joined.statusCode).toBe(200);
    expect(joined.json()).toMatchObject({ turns: 2, messages: [{ type: "ai", content: `done ${runId}` }] });
    bridge.refuseEnd = false;
  });

  it("GET …/stream (a rejoin) closes with the record's final values and an `end` without id", async () => {
    const { threadId, runId } = await lostEndRun();
    const streamed = await h.app.inject({ method: "GET", url: `/threads/${threadId}/runs/${runId}/stream`, headers: ALICE });
    bridge.refuseEnd = false;
    const frames = parseSse(streamed.body).filter((f) => f.event !== undefined);
    expect(frames[0]!.event).toBe("metadata");
    expect(frames.at(-1)).toEqual({ event: "end", data: "null", fields: ["event", "data"] });
    expect(frames.filter((f) => f.event === "end")).toHaveLength(1);
    const closing = frames.at(-2)!;
    expect(closing.event).toBe("values");
    expect(closing.id).toBeUndefined();
    expect(JSON.parse(closing.data!)).toMatchObject({ turns: 2 });
  });

  it("POST …/runs/wait of a run whose `end` is refused answers from the record", async () => {
    const threadId = await createThread(h.app);
    bridge.refuseEnd = true;
    const waited = await h.app.inject({ method: "POST", url: `/threads/${threadId}/runs/wait`, headers: ALICE, payload: body({ events: 3 }) });
    bridge.refuseEnd = false;
    expect(waited.statusCode).toBe(200);
    expect(waited.json()).toMatchObject({ turns: 3 });
    const runId = (waited.headers["content-location"] as string).split("/").at(-1)!;
    expect((await h.store.getRun(runId))?.status).toBe("success");
  });
});

describe("heartbeats while a run is live (over a socket)", () => {
  let h: Harness;
  let base: string;
  beforeAll(async () => {
    h = await startHarness({ heartbeatMs: 50 });
    base = await h.app.listen({ port: 0, host: "127.0.0.1" });
  });
  afterAll(async () => h.close());

  async function reader(response: Response) {
    const stream = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = "";
    return {
      async until(predicate: (text: string) => boolean) {
        while (!predicate(text)) {
          const { done, value } = await stream.read();
          if (done) break;
          text += decoder.decode(value, { stream: true });
        }
        return text;
      },
    };
  }

  it("POST …/runs/wait sends newlines until the answer, then the JSON values (200)", async () => {
    const threadId = await createThread(h.app);
    const response = await fetch(`${base}/threads/${threadId}/runs/wait`, { method: "POST", headers: { ...ALICE, "content-type": "application/json" }, body: JSON.stringify(body("gate")) });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("application/json");
    const runId = (response.headers.get("content-location") ?? "").split("/").at(-1)!;
    expect(runId).not.toBe("");
    const read = await reader(response);
    const beats = await read.until((t) => t.length >= 2);
    expect(beats).toBe("\n\n".slice(0, beats.length));
    h.executor.release(runId);
    const text = await read.until(() => false);
    expect(text.trim().startsWith("{")).toBe(true);
    expect(text.startsWith("\n")).toBe(true);
    expect(JSON.parse(text)).toMatchObject({ turns: 2, messages: [{ type: "ai", content: `done ${runId}` }] });
  });

  it("GET …/join sends newlines while the run is live, and a stream rejoin sends `: heartbeat`", async () => {
    const threadId = await createThread(h.app);
    const run = await (await fetch(`${base}/threads/${threadId}/runs`, { method: "POST", headers: { ...ALICE, "content-type": "application/json" }, body: JSON.stringify(body("gate")) })).json();
    const joined = await fetch(`${base}/threads/${threadId}/runs/${run.run_id}/join`, { headers: ALICE });
    const rejoined = await fetch(`${base}/threads/${threadId}/runs/${run.run_id}/stream`, { headers: ALICE });
    const join = await reader(joined);
    const stream = await reader(rejoined);
    expect(await join.until((t) => t.includes("\n"))).toMatch(/^\n+$/);
    expect(await stream.until((t) => t.includes(": heartbeat\n\n"))).toContain(": heartbeat\n\n");
    h.executor.release(run.run_id);
    expect(JSON.parse(await join.until(() => false))).toMatchObject({ turns: 2 });
    expect(await stream.until(() => false)).toContain("event: end");
  });
});
