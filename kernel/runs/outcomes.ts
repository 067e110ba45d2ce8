/**
 * The status@2 outcomes the run manager writes itself: a cancel, a lost lease found by
 * the reaper, an executor that threw. None of them is ever a success.
 */
import { isKeelError } from "../errors.js";
import { primaryStopReason, type StatusV2Payload, type StopReason } from "../loop/status.js";

/** Why a run was cancelled; the text ends up in `outcome.error.message`. */
export type CancelCause = "request" | "interrupt" | "rollback" | "shutdown" | "thread_deleted";

/** A cancel that reached a run: why, and whether its changes must be undone. */
export interface CancelRequest {
  cause: CancelCause;
  rollback: boolean;
}

const CANCEL_MESSAGES: Record<CancelCause, string> = {
  request: "Run cancelled on request",
  interrupt: "Run interrupted by a newer run on its thread (multitask strategy `interrupt`)",
  rollback: "Run cancelled with rollback",
  shutdown: "Run interrupted because the server shut down",
  thread_deleted: "Run cancelled because its thread is being deleted",
};

function withPrimary(stopReasons: StopReason[]): { stopReasons: StopReason[]; primaryStopReason?: string } {
  const primary = primaryStopReason(stopReasons);
  return primary === undefined ? { stopReasons } : { stopReasons, primaryStopReason: primary };
}

/**
 * `cancelled`, keeping what the executor already knew (stop reasons, usage): a cancel
 * that races a finishing run still wins, because the caller was told it was cancelled
 * (and a rollback undoes the work).
 */
export function cancelledOutcome(cause: CancelCause, from?: StatusV2Payload, detail?: string): StatusV2Payload {
  const message = detail ? `${CANCEL_MESSAGES[cause]}; ${detail}` : CANCEL_MESSAGES[cause];
  return {
    contract: "status",
    version: 2,
    status: "cancelled",
    ...withPrimary(from?.stopReasons ?? []),
    text: message,
    error: { type: "KEEL_ERR_RUN_CANCELLED", message, retryable: true },
    ...(from?.usage ? { usage: from.usage } : {}),
  };
}

/**
 * Whether `outcome` is a cancel with rollback whose undo did not fail (a rollback of a run
 * that had not started counts): LangGraph's API then treats the run as deleted.
 */
export function isRolledBack(outcome: StatusV2Payload | undefined): boolean {
  const message = outcome?.error?.message ?? "";
  return outcome?.status === "cancelled" && message.startsWith(CANCEL_MESSAGES.rollback) && !message.includes("the rollback failed");
}

/** The reaper's outcome for a run whose worker stopped renewing its lease. */
export function leaseExpiredOutcome(owner: string | undefined, leaseExpiresAt: string | undefined): StatusV2Payload {
  const message = `The lease of worker \`${owner ?? "unknown"}\` expired${leaseExpiresAt ? ` at ${leaseExpiresAt}` : ""} before the run finished; the run is marked failed`;
  return {
    contract: "status",
    version: 2,
    status: "failed",
    stopReasons: [{ reason: "lease_expired", by: "run-manager" }],
    primaryStopReason: "lease_expired",
    text: message,
    error: { type: "lease_expired", message, retryable: true },
  };
}

/** An executor that threw instead of returning an outcome. */
export function executorFailedOutcome(error: unknown): StatusV2Payload {
  const message = error instanceof Error ? error.message : String(error);
  const type = isKeelError(error) ? error.code : "executor_failed";
  return { contract: "status", version: 2, status: "failed", stopReasons: [], text: message, error: { type, message, retryable: false } };
}
