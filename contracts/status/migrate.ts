import { LEGACY_STOP_REASONS, RESULT_BRIEF_CHARS, type LegacyStopReason, type StatusV1 } from "./v1.js";
import type { RunStatus, StatusError, StopReason, StatusV2 } from "./v2.js";

/**
 * status@2 severity order: safety > budget/token > loop > progress > subagent_limit > turn >
 * model_length > others. (The kernel keeps its own copy: `contracts/` imports nothing of Keel.)
 */
const SEVERITY = ["safety_capped", "budget_exceeded", "token_capped", "loop_capped", "progress_blocked", "subagent_limit_capped", "turn_capped", "model_length_capped"];

/** The most severe stop reason; among equals (unknown reasons), the first that happened. */
export function primaryOf(reasons: readonly StopReason[]): string | undefined {
  let best: string | undefined;
  let bestRank = Infinity;
  for (const { reason } of reasons) {
    const rank = SEVERITY.includes(reason) ? SEVERITY.indexOf(reason) : SEVERITY.length;
    if (rank < bestRank) {
      best = reason;
      bestRank = rank;
    }
  }
  return best;
}

/** Text longer than 2,000 characters keeps its first 1,330 and last 665 around `\n...\n` (the delegation@1 rule). */
export function toResultBrief(text: string): string {
  return text.length <= RESULT_BRIEF_CHARS ? text : `${text.slice(0, 1330)}\n...\n${text.slice(-665)}`;
}

function legacyReason(reason: string): StopReason {
  return { reason, by: "legacy" };
}

function errorType(status: StatusV1["status"]): string {
  if (status === "timed_out" || status === "polling_timed_out") return "timeout";
  if (status === "cancelled") return "cancelled";
  return "error";
}

/**
 * Read a status@1 (DeerFlow) payload as status@2.
 *
 * - `completed` → `succeeded`, or `partial` when a stop reason is present.
 * - `max_turns_reached` (legacy) → `partial` + `turn_capped` when a non-empty brief
 *   exists, else `failed` + `turn_capped`; an explicit `stopReason` wins over `turn_capped`.
 * - `polling_timed_out` → `timed_out` + stop reason `polling_timed_out`.
 * - `failed`, `cancelled`, `timed_out` map by name.
 *
 * Stop reasons get `by: "legacy"`; `text` is `resultBrief ?? error ?? ""`. A legacy
 * `error` string becomes `{ type, message, retryable }` (only timeouts are retryable)
 * and is kept whatever the status: a migration drops nothing it can carry.
 *
 * @example
 * upgrade({ status: "max_turns_reached", resultBrief: "Half the table." });
 * // { contract: "status", version: 2, status: "partial", text: "Half the table.",
 * //   stopReasons: [{ reason: "turn_capped", by: "legacy" }], primaryStopReason: "turn_capped" }
 */
export function upgrade(v1: StatusV1): StatusV2 {
  const stopReasons: StopReason[] = [];
  let status: RunStatus;
  switch (v1.status) {
    case "completed":
      if (v1.stopReason) stopReasons.push(legacyReason(v1.stopReason));
      status = stopReasons.length > 0 ? "partial" : "succeeded";
      break;
    case "max_turns_reached":
      stopReasons.push(legacyReason(v1.stopReason ?? "turn_capped"));
      status = (v1.resultBrief ?? "").trim().length > 0 ? "partial" : "failed";
      break;
    case "polling_timed_out":
      if (v1.stopReason) stopReasons.push(legacyReason(v1.stopReason));
      stopReasons.push(legacyReason("polling_timed_out"));
      status = "timed_out";
      break;
    default:
      if (v1.stopReason) stopReasons.push(legacyReason(v1.stopReason));
      status = v1.status;
  }
  const primary = primaryOf(stopReasons);
  const error: StatusError | undefined =
    v1.error === undefined ? undefined : { type: errorType(v1.status), message: v1.error, retryable: errorType(v1.status) === "timeout" };
  return {
    contract: "status",
    version: 2,
    status,
    stopReasons,
    ...(primary === undefined ? {} : { primaryStopReason: primary }),
    text: v1.resultBrief ?? v1.error ?? "",
    ...(error === undefined ? {} : { error }),
    ...(v1.resultSha256 === undefined ? {} : { resultSha256: v1.resultSha256 }),
    ...(v1.tokenUsage === undefined ? {} : { usage: { ...v1.tokenUsage } }),
  };
}

function isLegacyStopReason(reason: string | undefined): reason is LegacyStopReason {
  return (LEGACY_STOP_REASONS as readonly string[]).includes(reason ?? "");
}

/**
 * The status@1 view of a status@2 payload, for old consumers.
 *
 * - `succeeded`/`partial` → `completed`; `failed`/`cancelled`/`timed_out` by name,
 *   except `timed_out` with the stop reason `polling_timed_out`, which is status@1's own
 *   `polling_timed_out`. `max_turns_reached` is never written.
 * - `stopReason`: the primary stop reason when status@1 knows it
 *   (`token_capped`, `turn_capped`, `loop_capped`), else none.
 * - `resultBrief`: `text` cut to 2,000 characters; left out when empty, or when a
 *   failed/cancelled/timed-out payload's text only repeats its error message.
 * - `error.message` → `error`; `usage` → `tokenUsage`; `resultSha256` is kept.
 *
 * @example
 * project({ contract: "status", version: 2, status: "partial", text: "Half.",
 *   stopReasons: [{ reason: "token_capped", by: "token-budget" }] });
 * // { status: "completed", stopReason: "token_capped", resultBrief: "Half." }
 */
export function project(v2: StatusV2): StatusV1 {
  const primary = v2.primaryStopReason ?? primaryOf(v2.stopReasons);
  const polling = v2.status === "timed_out" && v2.stopReasons.some((r) => r.reason === "polling_timed_out");
  const status: StatusV1["status"] = v2.status === "succeeded" || v2.status === "partial" ? "completed" : polling ? "polling_timed_out" : v2.status;
  const outputless = status !== "completed";
  const keepBrief = v2.text.length > 0 && !(outputless && v2.text === v2.error?.message);
  return {
    status,
    ...(isLegacyStopReason(primary) ? { stopReason: primary } : {}),
    ...(v2.error === undefined ? {} : { error: v2.error.message }),
    ...(keepBrief ? { resultBrief: toResultBrief(v2.text) } : {}),
    ...(v2.resultSha256 === undefined ? {} : { resultSha256: v2.resultSha256 }),
    ...(v2.usage === undefined ? {} : { tokenUsage: { ...v2.usage } }),
  };
}
