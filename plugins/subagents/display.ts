import type { SubagentReturn } from "./child-return.js";

/** How a stop reason reads in `Task Succeeded (capped: …)`. */
const CAP_LABELS: Record<string, string> = {
  token_capped: "token budget",
  turn_capped: "turn budget",
  loop_capped: "loop",
  safety_capped: "safety",
  model_length_capped: "output length",
  progress_blocked: "no progress",
  lease_expired: "lease expired",
  budget_exceeded: "shared budget",
  subagent_limit_capped: "subagent limit",
};

export function capLabel(reason: string): string {
  return CAP_LABELS[reason] ?? reason.replace(/_/g, " ");
}

const PAYLOAD_CHARS = 4000;

/** Lines the caller needs beyond the report: payload, inventory, verification, reason, suggestions. */
function detailLines(ret: SubagentReturn): string[] {
  const lines: string[] = [];
  if (ret.payload !== null && ret.payload !== undefined) {
    const json = JSON.stringify(ret.payload);
    lines.push(`Payload: ${json.length > PAYLOAD_CHARS ? `${json.slice(0, PAYLOAD_CHARS)}… (${json.length} characters)` : json}`);
  }
  if (ret.completedSteps.length > 0 || ret.missingSteps.length > 0) {
    lines.push(`Completed steps: ${ret.completedSteps.join("; ") || "none"}`);
    lines.push(`Missing steps: ${ret.missingSteps.join("; ") || "none"}${ret.stoppedAtStep ? ` (stopped at: ${ret.stoppedAtStep})` : ""}`);
  }
  if (ret.verification) lines.push(`Verification: ${ret.verification.type} expected=${ret.verification.expected} found=${ret.verification.found}`);
  if (ret.schemaValid === false) lines.push("Output schema: payload INVALID");
  if (ret.reason && ret.reason !== ret.error?.message) lines.push(`Reason: ${ret.reason}`);
  if (ret.suggestions.length > 0) lines.push(`Suggestions: ${ret.suggestions.join("; ")}`);
  return lines;
}

/**
 * The task's tool message text (display only; the fields are in its metadata):
 * `Task Succeeded. Result: …`, `Task Succeeded (capped: token budget). Result: …`,
 * `Task failed (capped: turn budget). Error: Reached max_turns=N`, then details and the
 * display evidence lines (the acceptance checklist). The citation verdict is not shown here:
 * it is in the message's metadata and the delegation entry.
 *
 * @example
 * displayText(ret, []) // "Task Succeeded. Result: Tides follow the moon."
 */
export function displayText(ret: SubagentReturn, evidence: readonly string[]): string {
  const cap = ret.primaryStopReason ? ` (capped: ${capLabel(ret.primaryStopReason)})` : "";
  let head: string;
  if (ret.status === "succeeded") head = `Task Succeeded. Result: ${ret.text}`;
  else if (ret.status === "partial") head = `Task Succeeded${cap || " (partial)"}. Result: ${ret.text}`;
  else {
    const verb = ret.status === "failed" ? "failed" : ret.status === "timed_out" ? "timed out" : "cancelled";
    const error = ret.error?.message ?? (ret.reason || "no usable result");
    head = `Task ${verb}${cap}. Error: ${error}`;
    if (ret.text && ret.text !== error) head += `\nReport: ${ret.text}`;
  }
  return [head, ...detailLines(ret), ...evidence.filter((line) => line.length > 0)].join("\n");
}

export const RESULT_BRIEF_CHARS = 2000;

/** delegation@1 `resultBrief`: ≤2,000 characters; a longer text keeps its first 1,330 and last 665 around `\n...\n`. */
export function resultBrief(text: string): string {
  if (text.length <= RESULT_BRIEF_CHARS) return text;
  return `${text.slice(0, 1330)}\n...\n${text.slice(text.length - 665)}`;
}
