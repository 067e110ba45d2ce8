import type { IncomingHttpHeaders, ServerResponse } from "node:http";
import type { FastifyReply } from "fastify";
import { FROM_START_EVENT_ID, isEventId } from "../../kernel/runs/stream-event-id.js";
import type { StreamEvent } from "../../kernel/runs/types.js";
import { HttpError } from "./http-errors.js";
import { toWireJson } from "./wire-json.js";

/** A comment line every 15 s keeps proxies and the SDK's idle watchdog content. */
export const HEARTBEAT_MS = 15_000;
export const HEARTBEAT_FRAME = ": heartbeat\n\n";

/**
 * One SSE frame: `event`, `data` (the event's data part as JSON), `id`, blank line. An
 * event with an empty id (the closing events of a run whose `end` was lost, built from
 * its record: they are not in the log) has no `id` line, so the client's cursor stays.
 */
export function sseFrame(event: Pick<StreamEvent, "id" | "event" | "data">): string {
  if (event.id === "") return `event: ${event.event}\ndata: ${toWireJson(event.data)}\n\n`;
  return `event: ${event.event}\ndata: ${toWireJson(event.data)}\nid: ${event.id}\n\n`;
}

/**
 * The cursor of a rejoin: the `Last-Event-ID` header (its first value), else the
 * `last_event_id` query parameter (EventSource clients behind a proxy that drops the
 * header). `-1` (the SDK's useStream) and absence mean "from the start" (undefined); a
 * `<ms>-<seq>` id is returned as is; anything else is a 400 `KEEL_ERR_HTTP_INVALID_BODY`
 * at `/last_event_id`, on every bridge, before any stream opens.
 */
export function readLastEventIdHeader(headers: IncomingHttpHeaders, query: string | undefined): string | undefined {
  const header = headers["last-event-id"];
  const raw = (Array.isArray(header) ? header[0] : header)?.trim() || query || undefined;
  if (raw === undefined || raw === FROM_START_EVENT_ID) return undefined;
  if (!isEventId(raw)) {
    throw new HttpError(400, "KEEL_ERR_HTTP_INVALID_BODY", `Last-Event-ID \`${String(raw).slice(0, 64)}\` is not a stream event id (\`<ms>-<seq>\`, or \`-1\` for the start)`, "/last_event_id");
  }
  return raw;
}

export interface SseSession {
  /** Aborted when the client goes away before the stream was closed by us. */
  readonly signal: AbortSignal;
  /** Write one event; resolves once the socket took it (backpressure), false when the client is gone. */
  send(event: Pick<StreamEvent, "id" | "event" | "data">): Promise<boolean>;
  /** End the response (idempotent). */
  close(): void;
}

/**
 * Take the response over from Fastify and open an event stream on it. The heartbeat
 * timer is unref'd, so an idle stream never keeps a shutting-down process alive.
 */
export function openSse(reply: FastifyReply, headers: Record<string, string>, heartbeatMs = HEARTBEAT_MS): SseSession {
  reply.hijack();
  const res: ServerResponse = reply.raw;
  const controller = new AbortController();
  let closed = false;
  res.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache, no-transform",
    connection: "keep-alive",
    "x-accel-buffering": "no",
    ...headers,
  });
  res.flushHeaders?.();
  const heartbeat = setInterval(() => {
    if (!closed && !res.destroyed) res.write(HEARTBEAT_FRAME);
  }, heartbeatMs);
  heartbeat.unref();
  const finish = () => {
    if (closed) return;
    closed = true;
    clearInterval(heartbeat);
  };
  res.on("close", () => {
    const byClient = !closed;
    finish();
    if (byClient) controller.abort(new Error("client disconnected"));
  });
  // Gone before the stream opened (while its run was being admitted).
  if (res.destroyed || res.socket?.destroyed) {
    finish();
    controller.abort(new Error("client disconnected"));
  }

  return {
    signal: controller.signal,
    async send(event) {
      if (closed || res.destroyed) return false;
      if (res.write(sseFrame(event))) return true;
      return new Promise<boolean>((resolve) => {
        const done = (ok: boolean) => {
          res.off("drain", onDrain);
          res.off("close", onClose);
          resolve(ok);
        };
        const onDrain = () => done(true);
        const onClose = () => done(false);
        res.once("drain", onDrain);
        res.once("close", onClose);
      });
    },
    close() {
      if (closed) return;
      finish();
      res.end();
    },
  };
}
