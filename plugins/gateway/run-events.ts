import type { FastifyBaseLogger } from "fastify";
import type { RunRecord } from "../../kernel/runs/types.js";
import type { RunManager } from "../../kernel/runs/run-manager.js";
import type { SseSession } from "./sse.js";

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
 * Copy a run's events to an SSE session until `end` (then close), or until the
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
  // Always closed by `end` (follow-run.ts): a lost `end`, a failed bridge or a `gap` is
  // made up from the run's record, never a hang and never a stream that just stops.
  try {
    const events = runs.follow(run.runId, { ...(options.lastEventId ? { lastEventId: options.lastEventId } : {}), signal: session.signal });
    for await (const event of events) {
      if (!wantedEvent(event.event, options.modes)) continue;
      if (!(await session.send(event))) break;
      if (event.event === "end") break;
    }
  } catch (error) {
    // The stream stops without `end`; the SDK then checks the run and rejoins with Last-Event-ID.
    if (!session.signal.aborted) options.log.error({ err: error, runId: run.runId }, "run stream failed");
  } finally {
    session.close();
  }
}
