import type { RunRecord } from "../../kernel/runs/types.js";
import type { GatewayContext } from "./context.js";
import { threadStateView } from "./thread-state.js";
import { publicValues, toWireValue } from "./wire-json.js";

/**
 * What `/wait` and `/join` answer once the run's `end` is out (HTTP 200 whatever the run's
 * end): the thread's state values, as the LangGraph Agent Server answers them, plus Keel's
 * `outcome` (the run's status@2: `succeeded`, `partial`, `failed`, `timed_out`,
 * `cancelled`, with its stop reasons). A failed or timed-out run adds LangGraph's
 * `__error__` ({error, message}), which the SDK's `runs.wait` turns into a thrown error, so
 * a failure never reads as a result; an interrupted (cancelled) run answers its last
 * values with `outcome.status: "cancelled"`. Callers must check `__error__` / `outcome`.
 */
export async function finalValues(ctx: GatewayContext, run: RunRecord): Promise<Record<string, unknown>> {
  const values = publicValues(await ctx.deps.runs.getThreadState(run.threadId));
  // A run paused by `interrupt()`: LangGraph's last `values` chunk carries the interrupts under `__interrupt__`.
  if (run.outcome?.stopReasons.some((r) => r.reason === "awaiting_input")) {
    const thread = await ctx.deps.store.getThread(run.threadId);
    const state = thread ? await threadStateView(ctx, thread) : null;
    const interrupts = ((state?.tasks ?? []) as Array<{ interrupts?: unknown[] }>).flatMap((task) => task.interrupts ?? []);
    if (interrupts.length > 0) values.__interrupt__ = interrupts;
  }
  if (run.outcome) values.outcome = toWireValue(run.outcome);
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
