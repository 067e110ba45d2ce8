import type { RunRecord } from "../../kernel/runs/types.js";
import type { GatewayContext } from "./context.js";
import { publicValues } from "./wire-json.js";

/**
 * What `/wait` and `/join` answer once the run's `end` is out: the thread's state values.
 * A failed run adds LangGraph's `__error__` ({error, message}), which the SDK's
 * `runs.wait` turns into a thrown error, so a failure never reads as a result.
 */
export async function finalValues(ctx: GatewayContext, run: RunRecord): Promise<Record<string, unknown>> {
  const values = publicValues(await ctx.deps.runs.getThreadState(run.threadId));
  if (run.status === "error" || run.status === "timeout") {
    values.__error__ = {
      error: run.outcome?.error?.type ?? (run.status === "timeout" ? "timed_out" : "failed"),
      message: run.outcome?.error?.message ?? `the run ended ${run.outcome?.status ?? run.status}`,
    };
  }
  return values;
}

/** An AbortSignal that fires when the client closes the connection before the answer was sent. */
export function clientGone(raw: import("node:http").ServerResponse): AbortSignal {
  const controller = new AbortController();
  raw.on("close", () => {
    if (!raw.writableFinished) controller.abort(new Error("client disconnected"));
  });
  return controller.signal;
}
