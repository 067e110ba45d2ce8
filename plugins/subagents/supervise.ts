import type { LeaseV1 } from "../../contracts/lease/v1.js";
import type { HookContext } from "../../kernel/plugin/types.js";
import type { AgentsPort, ChildAgentRequest, ChildAgentResult, ChildStep, LeaseHold, LeaseKeeperPort } from "../../kernel/ports/agents.js";
import type { Interruption } from "./child-return.js";

/** Why the supervisor aborted a child's own controller. */
type AbortCause = "lease_expired" | "timeout" | "parent_cancelled";

export interface SupervisedRun {
  /** The child's result, or null when the runner threw. */
  result: ChildAgentResult | null;
  failure?: string;
  interruption: Interruption;
  /** The live lease, when batch-leasing granted one. */
  hold?: LeaseHold;
  /** False when the lease expired while the child ran: the child's own terminal write is stale. */
  leaseCurrent: boolean;
}

export interface SuperviseOptions {
  agents: AgentsPort;
  request: Omit<ChildAgentRequest, "signal" | "onStep">;
  ctx: Pick<HookContext, "signal" | "now">;
  timeoutSeconds: number;
  lease?: LeaseV1;
  keeper?: LeaseKeeperPort;
  /** Every finished child step (already a heartbeat of its lease). */
  onStep?(step: ChildStep): void;
}

/**
 * Run one child under its own AbortController, aborted when the parent is cancelled, when
 * its lease expires (no heartbeat — a finished step — for the lease TTL), or when it runs
 * past `timeoutSeconds`. Cancelling the parent thus cancels every child.
 */
export async function superviseChild(options: SuperviseOptions): Promise<SupervisedRun> {
  const controller = new AbortController();
  let cause = null as AbortCause | null;
  const stop = (why: AbortCause) => {
    if (controller.signal.aborted) return;
    cause = why;
    controller.abort(new Error(`child stopped: ${why}`));
  };
  const onParentAbort = () => stop("parent_cancelled");
  if (options.ctx.signal.aborted) stop("parent_cancelled");
  else options.ctx.signal.addEventListener("abort", onParentAbort, { once: true });

  const { lease, keeper } = options;
  const hold = lease && keeper ? keeper.hold(lease, () => stop("lease_expired"), () => options.ctx.now()) : undefined;
  const timer = setTimeout(() => stop("timeout"), options.timeoutSeconds * 1000);
  timer.unref?.();

  let result: ChildAgentResult | null = null;
  let failure: string | undefined;
  try {
    result = await options.agents.run({
      ...options.request,
      signal: controller.signal,
      onStep: (step) => {
        hold?.beat();
        options.onStep?.(step);
      },
    });
  } catch (error) {
    failure = error instanceof Error ? error.message : String(error);
  } finally {
    clearTimeout(timer);
    options.ctx.signal.removeEventListener("abort", onParentAbort);
  }
  const leaseCurrent = hold ? hold.release() : true;
  const interruption: Interruption = !leaseCurrent
    ? { kind: "lease_expired", ttlMs: keeper!.ttlMs }
    : cause === "timeout"
      ? { kind: "timeout", seconds: options.timeoutSeconds }
      : cause === "parent_cancelled"
        ? { kind: "parent_cancelled" }
        : null;
  return { result, ...(failure === undefined ? {} : { failure }), interruption, ...(hold ? { hold } : {}), leaseCurrent };
}
