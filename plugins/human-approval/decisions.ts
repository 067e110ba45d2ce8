import { isRecord } from "../../contracts/plain-object.js";
import type { DecisionType, PendingCall, ReviewConfig } from "./policy.js";

/** LangChain's `Decision`, checked. */
export type Decision = { type: "approve" } | { type: "edit"; editedAction: { name: string; args: Record<string, unknown> } } | { type: "reject"; message?: string };

export type CheckedDecisions = { ok: true; decisions: Decision[] } | { ok: false; message: string };

/**
 * Check a resume value (`{ decisions: [...] }`, LangChain's `HITLResponse`) against the
 * request: one decision per pending call, in order, each of a type that call's review
 * config allows; an edit names the same tool and gives an args object; a reject's message
 * is a string when given. Anything else is refused as a whole: nothing is applied.
 */
export function checkDecisions(resume: unknown, calls: readonly PendingCall[], reviews: readonly ReviewConfig[]): CheckedDecisions {
  if (!isRecord(resume) || !Array.isArray(resume.decisions)) {
    return { ok: false, message: "the resume value must be `{ decisions: [...] }` (LangChain's HITLResponse)" };
  }
  const given = resume.decisions as unknown[];
  if (given.length !== calls.length) {
    return { ok: false, message: `${given.length} decision${given.length === 1 ? "" : "s"} for ${calls.length} pending tool call${calls.length === 1 ? "" : "s"}: give one per \`actionRequests\` entry, in order` };
  }
  const out: Decision[] = [];
  for (let i = 0; i < calls.length; i++) {
    const checked = checkOne(given[i], calls[i]!, reviews[i]!.allowedDecisions, i);
    if (typeof checked === "string") return { ok: false, message: checked };
    out.push(checked);
  }
  return { ok: true, decisions: out };
}

function checkOne(decision: unknown, call: PendingCall, allowed: readonly DecisionType[], i: number): Decision | string {
  const at = `decisions[${i}] (\`${call.name}\`)`;
  if (!isRecord(decision) || typeof decision.type !== "string") return `${at} must be an object with a \`type\``;
  if (!(allowed as readonly string[]).includes(decision.type)) return `${at} is \`${decision.type}\`, which this tool does not allow: one of ${allowed.join(", ")}`;
  if (decision.type === "approve") return { type: "approve" };
  if (decision.type === "edit") {
    const action = decision.editedAction;
    if (!isRecord(action) || !isRecord(action.args)) return `${at}: an edit needs \`editedAction: { name, args }\` with an args object`;
    if (action.name !== call.name) return `${at}: an edit may change the arguments, not the tool (\`${String(action.name)}\` instead of \`${call.name}\`)`;
    return { type: "edit", editedAction: { name: call.name, args: action.args } };
  }
  if (decision.message !== undefined && typeof decision.message !== "string") return `${at}: a reject's \`message\` must be a string`;
  return { type: "reject", ...(typeof decision.message === "string" ? { message: decision.message } : {}) };
}

/** What the model is told for a rejected call without a message (LangChain's default text). */
export function rejectionText(call: { name: string; id: string }, message: string | undefined): string {
  return message ?? `User rejected the tool call for \`${call.name}\` with id ${call.id}`;
}
