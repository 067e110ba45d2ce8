import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import type { DelegationV1 } from "../../contracts/delegation/v1.js";
import type { LeaseV1 } from "../../contracts/lease/v1.js";
import { sha256Hex } from "../../kernel/hashing.js";
import { keelMeta, setKeelMeta } from "../../kernel/loop/message-meta.js";
import type { StopReasonEntry } from "../../kernel/loop/status.js";
import type { BatchCall, Decision, RefusalReason } from "./grants.js";
import { isoPlus } from "./lease-keeper.js";

export const TASK_TOOL = "task";

type Refusal = Extract<Decision, { granted: false }>;

/** One refused call as the tools step answers it (the `leaseBatch` channel). */
export interface RefusedCall {
  taskId: string;
  reason: RefusalReason;
  detail: string;
  limit: Refusal["limit"];
  text: string;
}

/** The `task` calls of the newest assistant message, unless it is a forced final answer (its calls are discarded). */
export function batchOf(messages: readonly BaseMessage[]): BatchCall[] {
  const last = messages[messages.length - 1];
  if (!last || !AIMessage.isInstance(last) || keelMeta(last).forced === true) return [];
  return (last.tool_calls ?? [])
    .map((c, i) => ({ id: c.id ?? `${last.id}:call:${i + 1}`, name: c.name, args: (c.args ?? {}) as Record<string, unknown> }))
    .filter((c) => c.name === TASK_TOOL)
    .map((c) => ({
      id: c.id,
      subagentType: typeof c.args.subagentType === "string" && c.args.subagentType.length > 0 ? c.args.subagentType : "unknown",
      description: typeof c.args.description === "string" ? c.args.description : "",
    }));
}

/** The error tool result of a refused call: names the stop reason, says it did not run and what to do. */
export function refusalText(refusal: Refusal): string {
  const advice =
    refusal.reason === "budget_exceeded"
      ? "Finish with the results you have, or do the work yourself."
      : "Work with the results of the tasks already granted; delegate again only if still needed and the run's limits allow it.";
  return `[${refusal.reason}] This task was not started (refused by batch-leasing): ${refusal.detail}. ${advice}`;
}

export function toRefusedCall(refusal: Refusal): RefusedCall {
  return { taskId: refusal.call.id, reason: refusal.reason, detail: refusal.detail, limit: refusal.limit, text: refusalText(refusal) };
}

export function refusalMessage(refused: RefusedCall): ToolMessage {
  const message = new ToolMessage({ id: `${refused.taskId}:result`, tool_call_id: refused.taskId, name: TASK_TOOL, content: refused.text, status: "error" });
  return setKeelMeta(message, { refusal: { reason: refused.reason, limit: refused.limit } }) as ToolMessage;
}

const clip = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

/** delegation@1 for a refused call: failed, with the stop reason and its limit. */
export function refusedEntry(refused: RefusedCall, call: BatchCall, runId: string, turn: number, now: string): DelegationV1 {
  return {
    id: call.id,
    runId,
    description: clip(call.description.trim(), 200),
    subagentType: call.subagentType,
    status: "failed",
    resultBrief: clip(refused.text, 2000),
    resultSha256: sha256Hex(refused.text),
    stopReasons: [{ reason: refused.reason, by: "batch-leasing", turn, detail: refused.detail, limit: refused.limit }],
    createdAt: now,
  };
}

/** When no call of a batch was granted, the lead itself gets the stop reason and must finish. */
export function leadStop(refused: RefusedCall, turn: number): StopReasonEntry {
  return {
    reason: refused.reason,
    by: "batch-leasing",
    turn,
    detail: `no task call of this message was granted: ${refused.detail}`,
    limit: refused.limit,
    request: "final",
  };
}

/** lease@1 for a granted call; the owner is the child's agent path. */
export function grantLease(decision: Extract<Decision, { granted: true }>, runId: string, agent: string, now: string, ttlMs: number, parentEpoch?: number): LeaseV1 {
  return {
    leaseId: `lease:${runId}:${decision.call.id}`,
    runId,
    taskId: decision.call.id,
    owner: `${agent}/${decision.call.id}`,
    epoch: 1,
    ...(parentEpoch === undefined ? {} : { parentEpoch }),
    tokenAllowance: decision.allowance,
    returnReserve: decision.returnReserve,
    grantedAt: now,
    expiresAt: isoPlus(now, ttlMs),
    state: "active",
  };
}
