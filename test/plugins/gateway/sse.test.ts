import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compareEventIds, isEventId } from "../../../kernel/runs/memory-bridge.js";
import { MemoryStreamBridge } from "../../../kernel/runs/memory-bridge.js";
import { RunManager } from "../../../kernel/runs/run-manager.js";
import { ApiKeys, createGateway, sseFrame, wantedEvent } from "../../../plugins/gateway/index.js";
import { ALICE, createThread, parseSse, startHarness, until, type Harness } from "./harness.js";

describe("SSE streams", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ retention: 6 });
  });
  afterAll(async () => h.close());

  const streamRun = (threadId: string, payload: object) => h.app.inject({ method: "POST", url: `/threads/${threadId}/runs/stream`, headers: ALICE, payload });
  const rejoin = (threadId: string, runId: string, headers: Record<string, string> = {}, query = "") =>
    h.app.inject({ method: "GET", url: `/threads/${threadId}/runs/${runId}/stream${query}`, headers: { ...ALICE, ...headers } });

  it("frames every event as event, data, id, blank line: metadata first, end last, ids increasing", async () => {
    const threadId = await createThread(h.app);
    const response = await streamRun(threadId, { assistant_id: "lead", input: { events: 3 }, stream_mode: ["custom", "values"] });
    expect(response.statusCode).toBe(200);
    expect(response.headers["content-type"]).toMatch(/^text\/event-stream/);
    const location = response.headers["content-location"] as string;
    expect(location).toMatch(new RegExp(`^/threads/${threadId}/runs/[^/]+$`));
    expect(response.headers.location).toBe(`${location}/stream`);
    expect(response.body.endsWith("\n\n")).toBe(true);

    const frames = parseSse(response.body);
    for (const frame of frames) {
      expect(frame.fields).toEqual(["event", "data", "id"]);
      expect(isEventId(frame.id)).toBe(true);
      JSON.parse(frame.data!);
    }
    const runId = location.split("/").at(-1);
    expect(frames[0]!.event).toBe("metadata");
    expect(JSON.parse(frames[0]!.data!)).toEqual({ run_id: runId, thread_id: threadId, attempt: 1 });
    expect(frames.map((f) => f.event)).toEqual(["metadata", "custom", "custom", "custom", "values", "end"]);
    expect(JSON.parse(frames[1]!.data!)).toEqual({ step: 1 });
    expect(frames.at(-1)!.data).toBe("null");
    for (let i = 1; i < frames.length; i++) expect(compareEventIds(frames[i - 1]!.id!, frames[i]!.id!)).toBeLessThan(0);
  });

  it("filters by stream_mode but always sends metadata and end", async () => {
    const threadId = await createThread(h.app);
    const response = await streamRun(threadId, { assistant_id: "lead", input: { events: 2 }, stream_mode: "values", stream_resumable: false });
    expect(parseSse(response.body).map((f) => f.event)).toEqual(["metadata", "values", "end"]);
    // Not resumable: no `Location` for the SDK to reconnect to (Content-Location stays).
    expect(response.headers.location).toBeUndefined();
    expect(response.headers["content-location"]).toMatch(/^\/threads\//);
    expect(wantedEvent("messages", ["messages-tuple"])).toBe(true);
    expect(wantedEvent("messages/partial", ["messages"])).toBe(true);
    expect(wantedEvent("messages/partial", ["messages-tuple"])).toBe(false);
    expect(wantedEvent("messages", ["messages"])).toBe(false);
    expect(wantedEvent("updates|tools:call_1", ["updates"])).toBe(true);
    expect(wantedEvent("values/omitted", ["values"])).toBe(true);
    expect(wantedEvent("custom", undefined)).toBe(false);
    expect(wantedEvent("values", undefined)).toBe(true);
    expect(wantedEvent("guard", ["guard"])).toBe(true);
    expect(wantedEvent("guard", ["values"])).toBe(false);
    expect(wantedEvent("gap", ["values"])).toBe(true);
  });

  it("rejoins with Last-Event-ID: exactly the events after it, then end", async () => {
    const threadId = await createThread(h.app);
    const first = parseSse((await streamRun(threadId, { assistant_id: "lead", input: { events: 2 }, stream_mode: ["custom", "values"] })).body);
    const runId = (await h.store.listRuns(threadId, { limit: 1, offset: 0 }))[0]!.runId;
    const fromStart = parseSse((await rejoin(threadId, runId)).body);
    expect(fromStart.map((f) => f.id)).toEqual(first.map((f) => f.id));
    const cursor = first[2]!.id!;
    const response = await rejoin(threadId, runId, { "last-event-id": cursor });
    expect(response.statusCode).toBe(200);
    expect(response.headers["content-location"]).toBe(`/threads/${threadId}/runs/${runId}`);
    expect(parseSse(response.body).map((f) => f.id)).toEqual(first.slice(3).map((f) => f.id));
    // The query parameter is honoured too (browsers' EventSource cannot set the header).
    expect(parseSse((await rejoin(threadId, runId, {}, `?last_event_id=${cursor}`)).body).map((f) => f.id)).toEqual(first.slice(3).map((f) => f.id));
  });

  it("answers gap, then the retained events through end, when Last-Event-ID fell out of retention", async () => {
    const threadId = await createThread(h.app);
    const first = parseSse((await streamRun(threadId, { assistant_id: "lead", input: { events: 20 }, stream_mode: ["custom", "values"] })).body);
    expect(first.at(-1)!.event).toBe("end");
    const runId = (await h.store.listRuns(threadId, { limit: 1, offset: 0 }))[0]!.runId;
    // Retention is 6 events here: the very first id is long gone.
    const response = await rejoin(threadId, runId, { "last-event-id": first[0]!.id! });
    const frames = parseSse(response.body);
    expect(frames[0]!.event).toBe("gap");
    expect(JSON.parse(frames[0]!.data!)).toMatchObject({ code: "stream_replay_gap", requested: first[0]!.id, recovery: "reload_durable_state" });
    // The stream goes on after the gap (follow-run.ts): the retained events, ending with `end`.
    // (Compared with the bridge's log, not with the first stream: a consumer slower than the
    // producer got a gap of its own there, and its tail was then closed from the record.)
    const retained = await h.bridge.read(runId);
    expect(retained).toHaveLength(6);
    expect(frames.slice(1).map((f) => f.id)).toEqual(retained.map((e) => e.id));
    expect(frames.at(-1)!.event).toBe("end");
  });

  it("refuses a malformed Last-Event-ID with 400", async () => {
    const threadId = await createThread(h.app);
    await h.app.inject({ method: "POST", url: `/threads/${threadId}/runs/wait`, headers: ALICE, payload: { assistant_id: "lead" } });
    const runId = (await h.store.listRuns(threadId, { limit: 1, offset: 0 }))[0]!.runId;
    const response = await rejoin(threadId, runId, { "last-event-id": "yesterday" });
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toBe("KEEL_ERR_HTTP_INVALID_BODY");
  });

  it("a stream of a refused run is a JSON error, not an event stream", async () => {
    const threadId = await createThread(h.app);
    const run = (await h.app.inject({ method: "POST", url: `/threads/${threadId}/runs`, headers: ALICE, payload: { assistant_id: "lead", input: "hang" } })).json();
    const refused = await streamRun(threadId, { assistant_id: "lead" });
    expect(refused.statusCode).toBe(409);
    expect(refused.headers["content-type"]).toMatch(/json/);
    await h.runs.cancel(threadId, run.run_id, { wait: true });
  });

  it("sseFrame writes the data part as JSON and LangChain messages as dicts", async () => {
    const { AIMessage } = await import("@langchain/core/messages");
    const frame = sseFrame({ id: "5-1", event: "values", data: { messages: [new AIMessage({ content: "hi", id: "m1" })] } });
    const parsed = parseSse(frame)[0]!;
    expect(parsed.id).toBe("5-1");
    expect(JSON.parse(parsed.data!).messages[0]).toMatchObject({ type: "ai", content: "hi", id: "m1" });
  });
});

describe("SSE over a real socket", () => {
  let h: Harness;
  let base: string;
  beforeAll(async () => {
    h = await startHarness({ heartbeatMs: 100 });
    base = await h.app.listen({ port: 0, host: "127.0.0.1" });
  });
  afterAll(async () => h.close());

  async function openStream(threadId: string, body: object, signal: AbortSignal) {
    const response = await fetch(`${base}/threads/${threadId}/runs/stream`, { method: "POST", headers: { ...ALICE, "content-type": "application/json" }, body: JSON.stringify(body), signal });
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = "";
    return {
      response,
      /** Read until `predicate(text)` holds. */
      async readUntil(predicate: (text: string) => boolean) {
        while (!predicate(text)) {
          const { done, value } = await reader.read();
          if (done) break;
          text += decoder.decode(value, { stream: true });
        }
        return text;
      },
    };
  }

  it("sends `: heartbeat` comments while a run is quiet", async () => {
    const threadId = await createThread(h.app);
    const controller = new AbortController();
    const stream = await openStream(threadId, { assistant_id: "lead", input: "gate", on_disconnect: "continue" }, controller.signal);
    const text = await stream.readUntil((t) => t.includes(": heartbeat\n\n"));
    expect(text).toContain("event: metadata");
    expect(text).toContain(": heartbeat\n\n");
    const runId = (stream.response.headers.get("content-location") ?? "").split("/").at(-1)!;
    h.executor.release(runId);
    const rest = await stream.readUntil((t) => t.includes("event: end"));
    expect(rest).toContain("event: end");
  });

  it("on_disconnect=cancel (the default) cancels the run when the client goes away", async () => {
    const threadId = await createThread(h.app);
    const controller = new AbortController();
    const stream = await openStream(threadId, { assistant_id: "lead", input: "hang" }, controller.signal);
    await stream.readUntil((t) => t.includes("event: metadata"));
    const runId = (stream.response.headers.get("content-location") ?? "").split("/").at(-1)!;
    controller.abort();
    const finished = await h.runs.join(runId);
    expect(finished.status).toBe("interrupted");
    expect(finished.outcome?.status).toBe("cancelled");
  });

  it("on_disconnect=continue lets the run finish after the client left", async () => {
    const threadId = await createThread(h.app);
    const controller = new AbortController();
    const stream = await openStream(threadId, { assistant_id: "lead", input: "gate", on_disconnect: "continue" }, controller.signal);
    await stream.readUntil((t) => t.includes("event: metadata"));
    const runId = (stream.response.headers.get("content-location") ?? "").split("/").at(-1)!;
    controller.abort();
    await until(() => h.executor.isWaiting(runId), "the run");
    h.executor.release(runId);
    expect((await h.runs.join(runId)).status).toBe("success");
  });

  it("a /wait client that disconnects cancels the run; it never becomes a success", async () => {
    const threadId = await createThread(h.app);
    const controller = new AbortController();
    const waiting = fetch(`${base}/threads/${threadId}/runs/wait`, {
      method: "POST",
      headers: { ...ALICE, "content-type": "application/json" },
      body: JSON.stringify({ assistant_id: "lead", input: "gate" }),
      signal: controller.signal,
    }).catch((error: unknown) => error);
    const runId = await until(async () => (await h.store.listRuns(threadId, { limit: 1, offset: 0 }))[0]?.runId, "the run");
    await until(() => h.executor.isWaiting(runId), "the run to start");
    controller.abort();
    expect(await waiting).toBeInstanceOf(Error);
    const finished = await h.runs.join(runId);
    expect(finished.status).toBe("interrupted");
  });
});

describe("SSE for a finished run whose events are gone", () => {
  it("answers a gap (reload durable state), then the record's final values and `end`, instead of waiting forever", async () => {
    const h = await startHarness();
    // A second server on the same store with a fresh bridge: what a restart leaves with the in-memory bridge.
    const bridge = new MemoryStreamBridge();
    const runs = new RunManager({ store: h.store, bridge, executor: h.executor, log: () => undefined });
    const restarted = await createGateway({ deps: { runs, store: h.store, bridge }, apiKeys: new ApiKeys([["key-alice", "alice"]]), stacks: ["lead"], version: "t" });
    try {
      const threadId = await createThread(h.app);
      const done = await h.app.inject({ method: "POST", url: `/threads/${threadId}/runs/wait`, headers: ALICE, payload: { assistant_id: "lead" } });
      const runPath = done.headers["content-location"] as string;
      const response = await restarted.inject({ method: "GET", url: `${runPath}/stream`, headers: ALICE });
      const frames = parseSse(response.body);
      expect(frames.map((f) => f.event)).toEqual(["gap", "metadata", "values", "end"]);
      expect(JSON.parse(frames[0]!.data!)).toMatchObject({ code: "stream_replay_gap", requested: "0-0", earliest: null, latest: null, recovery: "reload_durable_state" });
      // The closing values are the run's final values, as `/wait` answered them.
      const waited = done.json() as Record<string, unknown>;
      expect(JSON.parse(frames[2]!.data!).messages).toEqual(waited.messages);
      // The record is still there to reload.
      const record = await restarted.inject({ method: "GET", url: runPath, headers: ALICE });
      expect(record.json().status).toBe("success");
    } finally {
      await restarted.close();
      await runs.shutdown();
      await h.close();
    }
  });
});
