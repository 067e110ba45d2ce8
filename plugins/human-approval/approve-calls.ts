import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { canonicalJson, sha256Hex } from "../../kernel/hashing.js";
import type { ApprovalJournalEntry, ChannelState, ChannelUpdate, HookContext } from "../../kernel/plugin/types.js";
import { checkDecisions, type Decision } from "./decisions.js";
import { withEditedArgs } from "./edit-message.js";
import { buildRequest, readPolicy, type HITLRequest, type PendingCall } from "./policy.js";

/** One entry of the `approvals` channel. */
export interface ApprovalEntry {
  toolCallId: string;
  tool: string;
  decision: Decision["type"];
  args?: Record<string, unknown>;
  message?: string;
  by?: string;
  at: string;
  runId: string;
  turn: number;
}

export const isChildAgent = (agent: string): boolean => agent.includes("/");

export function approvalsOf(state: ChannelState): ApprovalEntry[] {
  return (state.approvals as ApprovalEntry[] | undefined) ?? [];
}

/**
 * The calls of the step's AI message (the newest, followed only by tool results) that the
 * policy covers and that have neither a result nor a decision yet.
 */
export function pendingCalls(messages: readonly BaseMessage[], covered: (tool: string) => boolean, decided: ReadonlySet<string>): { ai: AIMessage; calls: PendingCall[] } | null {
  let at = messages.length - 1;
  while (at >= 0 && ToolMessage.isInstance(messages[at])) at--;
  const ai = messages[at];
  if (!ai || !AIMessage.isInstance(ai) || !ai.tool_calls?.length) return null;
  const answered = new Set(messages.slice(at + 1).map((m) => (m as ToolMessage).tool_call_id));
  const calls = ai.tool_calls
    .filter((c) => c.id !== undefined && covered(c.name) && !answered.has(c.id) && !decided.has(c.id))
    .map((c) => ({ id: c.id!, name: c.name, args: (c.args ?? {}) as Record<string, unknown> }));
  return calls.length > 0 ? { ai, calls } : null;
}

const argsHash = (args: Record<string, unknown>): string => sha256Hex(canonicalJson(args));

/**
 * afterModel: one `ctx.interrupt()` with LangChain's HITL request for all pending calls
 * of the AI message; the resume's decisions are checked as a whole. Invalid ones apply
 * nothing: the hook asks again with the same request plus the error (the run pauses
 * again). Valid ones go into `approvals`; edits change the message's calls before the
 * tools step, rejections are answered there (wrapToolCall).
 */
export function approveCalls(state: ChannelState, ctx: HookContext): ChannelUpdate | undefined {
  const policy = readPolicy(ctx.config);
  if (policy.tools.size === 0 || isChildAgent(ctx.agent)) return undefined;
  const decided = new Set(approvalsOf(state).map((a) => a.toolCallId));
  const found = pendingCalls((state.messages as BaseMessage[] | undefined) ?? [], (tool) => policy.tools.has(tool), decided);
  if (!found) return undefined;
  const { ai, calls } = found;
  const request = buildRequest(calls, policy);
  const by = ctx.user !== undefined ? { by: ctx.user } : {};
  const entries = (status: string): ApprovalJournalEntry[] => calls.map((c) => ({ name: c.name, status, toolCallId: c.id, argsSha256: argsHash(c.args) }));

  let asked: HITLRequest = request;
  let journal = entries("requested");
  for (;;) {
    const checked = checkDecisions(ctx.interrupt(asked, { journal }), calls, request.reviewConfigs);
    if (checked.ok) return applyDecisions(ai, calls, checked.decisions, ctx);
    asked = { ...request, error: { code: "KEEL_ERR_APPROVAL_DECISION_INVALID", message: `KEEL_ERR_APPROVAL_DECISION_INVALID: ${checked.message}; nothing was applied: resume again with one decision per action request, in order` } };
    journal = entries("invalid").map((e) => ({ ...e, ...by }));
  }
}

function applyDecisions(ai: AIMessage, calls: readonly PendingCall[], decisions: readonly Decision[], ctx: HookContext): ChannelUpdate {
  const at = ctx.now();
  const edited = new Map<string, Record<string, unknown>>();
  const approvals: ApprovalEntry[] = calls.map((call, i) => {
    const decision = decisions[i]!;
    const entry: ApprovalEntry = { toolCallId: call.id, tool: call.name, decision: decision.type, at, runId: ctx.runId, turn: ctx.turn, ...(ctx.user !== undefined ? { by: ctx.user } : {}) };
    if (decision.type === "edit") {
      entry.args = decision.editedAction.args;
      edited.set(call.id, decision.editedAction.args);
    }
    if (decision.type === "reject" && decision.message !== undefined) entry.message = decision.message;
    ctx.journal({ name: call.name, status: decision.type, toolCallId: call.id, argsSha256: argsHash(entry.args ?? call.args), ...(entry.by !== undefined ? { by: entry.by } : {}) });
    return entry;
  });
  return { approvals, ...(edited.size > 0 ? { messages: [withEditedArgs(ai, edited)] } : {}) };
}
