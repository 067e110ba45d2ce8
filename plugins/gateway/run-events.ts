import type { FastifyBaseLogger } from "fastify";
import type { RunRecord } from "../../kernel/runs/types.js";
import type { RunManager } from "../../kernel/runs/run-manager.js";
import type { SseSession } from "./sse.js";

/** Events every stream carries whatever modes were asked for (LangGraph's `metadata` and `error`, Keel's `gap` and `end`). */
const ALWAYS = new Set(["metadata", "error", "gap", "end"]);

/** LangGraph's default when a client names no mode. */
const DEFAULT_MODES: readonly string[] = ["values"];

/**
 * Whether an event goes out under the requested stream modes (none asked: LangGraph's
 * default, `values`). As on the LangGraph server, `messages-tuple` is the `messages` event
 * (`[chunk, metadata]`) and `messages` its `messages/metadata|partial|complete` events; a
 * subgraph's event (`updates|tools:call_1`) follows its mode; `values/omitted` (the marker
 * of a state too large to send) follows `values`. Keel's `guard` and `task` go out only
 * when asked for by name.
 */
export function wantedEvent(event: string, modes: readonly string[] | undefined): boolean {
  if (ALWAYS.has(event)) return true;
  const asked = modes && modes.length > 0 ? modes : DEFAULT_MODES;
  const base = event.split("|")[0]!;
  if (base === "messages") return asked.includes("messages-tuple");
  const family = base.split("/")[0]!;
  return asked.includes(family);
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
