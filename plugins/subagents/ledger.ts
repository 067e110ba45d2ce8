import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import type { DelegationV1 } from "../../contracts/delegation/v1.js";
import type { LeaseV1 } from "../../contracts/lease/v1.js";
import { isHidden, keelMeta } from "../../kernel/loop/message-meta.js";
import type { ChannelState } from "../../kernel/plugin/types.js";
import type { AcceptanceVerdict, CitationVerdict } from "../../kernel/ports/agents.js";
import type { SubagentReturn } from "./child-return.js";
import { resultBrief } from "./display.js";
import { TASK_TOOL } from "./task-tool.js";

export type Delegation = DelegationV1;

export const DESCRIPTION_CHARS = 200;

export function delegationsOf(state: ChannelState): Delegation[] {
  return Array.isArray(state.delegations) ? (state.delegations as Delegation[]) : [];
}

/** This run's lease for a task call, when batch-leasing granted one. */
export function leaseFor(state: ChannelState, runId: string, taskId: string): LeaseV1 | undefined {
  const leases = Array.isArray(state.leases) ? (state.leases as LeaseV1[]) : [];
  return leases.find((l) => l.taskId === taskId && l.runId === runId);
}

/** batch-leasing is in the stack exactly when its `leases` channel is: then a call needs a grant. */
export function leasingPresent(state: ChannelState): boolean {
  return Array.isArray(state.leases);
}

function clipDescription(text: string): string {
  const t = text.trim();
  return t.length <= DESCRIPTION_CHARS ? t : `${t.slice(0, DESCRIPTION_CHARS - 1)}…`;
}

export interface TaskCall {
  id: string;
  args: Record<string, unknown>;
}

/** The `task` calls of an assistant message, with the ids the tools node gives id-less calls. */
export function taskCalls(ai: AIMessage): TaskCall[] {
  return (ai.tool_calls ?? [])
    .map((c, i) => ({ id: c.id ?? `${ai.id}:call:${i + 1}`, name: c.name, args: (c.args ?? {}) as Record<string, unknown> }))
    .filter((c) => c.name === TASK_TOOL)
    .map(({ id, args }) => ({ id, args }));
}

function leaseRef(lease: Pick<LeaseV1, "leaseId" | "epoch" | "expiresAt"> | undefined) {
  return lease ? { lease: { leaseId: lease.leaseId, epoch: lease.epoch, expiresAt: lease.expiresAt } } : {};
}

/** The entry written when a task call is granted (before the tools step, so compaction or a crash cannot lose it). */
export function inProgressEntry(call: TaskCall, runId: string, createdAt: string, lease: LeaseV1 | undefined): Delegation {
  const description = typeof call.args.description === "string" ? call.args.description : "";
  const type = typeof call.args.subagentType === "string" && call.args.subagentType.length > 0 ? call.args.subagentType : "unknown";
  return { id: call.id, runId, description: clipDescription(description), subagentType: type, status: "in_progress", createdAt, ...leaseRef(lease) };
}

export interface TerminalInput {
  base: Delegation;
  ret: SubagentReturn;
  /** The result text handed to the caller (the display text, acceptance checklist included); its brief is `resultBrief`. */
  result: string;
  receiptVerdict?: CitationVerdict;
  acceptanceVerdict?: AcceptanceVerdict;
  lease?: { leaseId: string; epoch: number; expiresAt: string };
}

export function terminalEntry({ base, ret, result, receiptVerdict, acceptanceVerdict, lease }: TerminalInput): Delegation {
  return {
    id: base.id,
    runId: base.runId,
    description: base.description,
    subagentType: base.subagentType,
    status: ret.status,
    resultBrief: resultBrief(result),
    // The child's own text only: not the display head, the details or the appended checklist.
    ...(ret.resultSha256 ? { resultSha256: ret.resultSha256 } : {}),
    stopReasons: ret.stopReasons,
    ...(ret.usage ? { usage: ret.usage } : {}),
    ...(receiptVerdict ? { receiptVerdict } : {}),
    ...(acceptanceVerdict ? { acceptanceVerdict } : {}),
    schemaValid: ret.schemaValid,
    ...(lease ? { lease } : base.lease ? { lease: base.lease } : {}),
    createdAt: base.createdAt,
  };
}

/** A granted call that an inner tool wrapper answered without running the child. */
export function notRunEntry(base: Delegation, answer: string): Delegation {
  // No child ran, so there is no child text to hash (`resultSha256` covers the child's own text only).
  return { ...base, status: "failed", resultBrief: resultBrief(`not run: ${answer}`), stopReasons: [], schemaValid: null };
}

/** A run that begins with a new user message: in-progress entries of earlier runs can never finish. */
export function startsWithNewUserMessage(messages: readonly BaseMessage[]): boolean {
  const last = messages[messages.length - 1];
  return last !== undefined && HumanMessage.isInstance(last) && !isHidden(last);
}

export function cancelEntry(entry: Delegation, why: string): Delegation {
  return { ...entry, status: "cancelled", resultBrief: resultBrief(why) };
}

/** Calls that have a tool result in `messages`. */
export function answeredCalls(messages: readonly BaseMessage[]): Set<string> {
  return new Set(messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m)).map((m) => m.tool_call_id));
}

/** The newest assistant message, when it is the last message and not a forced final answer. */
export function freshAssistant(messages: readonly BaseMessage[]): AIMessage | undefined {
  const last = messages[messages.length - 1];
  if (!last || !AIMessage.isInstance(last) || keelMeta(last).forced === true) return undefined;
  return last;
}
