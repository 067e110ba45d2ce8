import type { FastifyBaseLogger } from "fastify";
import type { RunRecord, StreamEvent } from "../../kernel/runs/types.js";
import type { RunManager } from "../../kernel/runs/run-manager.js";
import type { SseSession } from "./sse.js";
import { linkedSignal } from "../../kernel/runs/follow-log.js";

/** Events every stream carries whatever modes were asked for. */
const ALWAYS = new Set(["metadata", "error", "gap", "end"]);

/**
 * Whether an event goes out under the requested stream modes (none asked: everything).
 * `messages-tuple` is LangGraph's name for the `messages` events; sub-events such as
 * `messages/partial` follow their family.
 */
export function wantedEvent(event: string, modes: readonly string[] | undefined): boolean {
  if (!modes || modes.length === 0 || ALWAYS.has(event)) return true;
  const family = event.split("/")[0]!;
  return modes.includes(family) || (family === "messages" && modes.includes("messages-tuple"));
}

export interface PipeOptions {
  lastEventId?: string;
  modes?: readonly string[];
  /** Cancel the run when the client goes away before `end` (`on_disconnect: cancel`). */
  cancelOnDisconnect: boolean;
  log: FastifyBaseLogger;
}

/**
 * Copy a run's events to an SSE session until `end` or `gap` (then close), or until the
 * client leaves. A client that leaves never turns into a success: with
 * `cancelOnDisconnect` the run is cancelled as soon as the socket closes.
 */
export async function pipeRunEvents(session: SseSession, runs: RunManager, run: RunRecord, options: PipeOptions): Promise<void> {
  if (options.cancelOnDisconnect) {
    const cancel = () => {
      runs.cancel(run.threadId, run.runId, { action: "interrupt" }).catch((error: unknown) => options.log.warn({ err: error, runId: run.runId }, "cancel on disconnect failed"));
    };
    // The client may have left while the run was being admitted.
    if (session.signal.aborted) cancel();
    else session.signal.addEventListener("abort", cancel, { once: true });
  }
  // A finished run whose `end` never reaches the stream: the watchdog stops the subscription
  // and the stream closes with the record's final events (never a hang).
  const lostEnd = new AbortController();
  let lost: RunRecord | null = null;
  const stopWatching = runs.watchForLostEnd(run.runId, (finished) => {
    lost = finished;
    lostEnd.abort();
  });
  const received: Array<Pick<StreamEvent, "event">> = [];
  const { signal, release } = linkedSignal([session.signal, lostEnd.signal]);
  try {
    const events = runs.stream(run.runId, { ...(options.lastEventId ? { lastEventId: options.lastEventId } : {}), signal });
    for await (const event of events) {
      if (event.event === "metadata" || event.event === "error") received.push(event);
      if (!wantedEvent(event.event, options.modes)) continue;
      if (!(await session.send(event))) break;
      if (event.event === "end" || event.event === "gap") break;
    }
    const finished: RunRecord | null = lost;
    if (finished && !session.signal.aborted) {
      for (const event of await runs.closingEvents(finished, received)) {
        if (wantedEvent(event.event, options.modes) && !(await session.send(event))) break;
      }
    }
  } catch (error) {
    // The stream stops without `end`; the SDK then checks the run and rejoins with Last-Event-ID.
    if (!session.signal.aborted) options.log.error({ err: error, runId: run.runId }, "run stream failed");
  } finally {
    stopWatching();
    release();
    session.close();
  }
}
