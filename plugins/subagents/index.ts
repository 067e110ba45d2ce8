import type { BaseMessage } from "@langchain/core/messages";
import { messageText, setKeelMeta } from "../../kernel/loop/message-meta.js";
import { definePlugin } from "../../kernel/plugin/define-plugin.js";
import type { Hooks, KeelTool } from "../../kernel/plugin/types.js";
import {
  answeredCalls,
  cancelEntry,
  delegationsOf,
  freshAssistant,
  inProgressEntry,
  leaseFor,
  leasingPresent,
  notRunEntry,
  startsWithNewUserMessage,
  taskCalls,
} from "./ledger.js";
import { withDelegationSection } from "./lead-prompt.js";
import { subagentsManifest } from "./manifest.js";
import { settleTask, type TaskSettlement } from "./run-task.js";
import { TASK_TOOL, taskTool } from "./task-tool.js";

const messagesOf = (state: Readonly<Record<string, unknown>>) => (state.messages as BaseMessage[] | undefined) ?? [];

const hooks: Hooks = {
  /** A new user turn: entries an earlier run left in progress can never finish, so they are cancelled. */
  beforeAgent(state, ctx) {
    if (!startsWithNewUserMessage(messagesOf(state))) return;
    const stale = delegationsOf(state).filter((d) => d.status === "in_progress" && d.runId !== ctx.runId);
    if (stale.length === 0) return;
    return { delegations: stale.map((d) => cancelEntry(d, `cancelled: run ${d.runId} ended before this task finished, and a new user turn began`)) };
  },

  /**
   * Record each granted `task` call as in_progress before any child starts, so the ledger
   * survives compaction and a crash. With batch-leasing, only calls it leased are granted
   * (it ran just before this hook and recorded its refusals itself).
   */
  afterModel(state, ctx) {
    const ai = freshAssistant(messagesOf(state));
    if (!ai) return;
    const known = new Set(delegationsOf(state).filter((d) => d.runId === ctx.runId).map((d) => d.id));
    const entries = taskCalls(ai)
      .filter((call) => !known.has(call.id))
      .flatMap((call) => {
        const lease = leaseFor(state, ctx.runId, call.id);
        if (leasingPresent(state) && !lease) return [];
        return [inProgressEntry(call, ctx.runId, ctx.now(), lease)];
      });
    return entries.length > 0 ? { delegations: entries } : undefined;
  },

  /**
   * Run a granted `task` call: the call's tool is swapped for one bound to this hook (so the
   * child runs with the hook's events and ledger, and the kernel still journals the call),
   * then the terminal entry is written and the structured return put in the result's metadata.
   * An ungranted call passes on: batch-leasing, inside this hook, answers it with its refusal.
   */
  async wrapToolCall(request, next, ctx) {
    const call = request.toolCall;
    if (call.name !== TASK_TOOL || request.tool !== taskTool) return next(request);
    const lease = leaseFor(request.state, ctx.runId, call.id);
    if (leasingPresent(request.state) && !lease) return next(request);
    const base = delegationsOf(request.state).find((d) => d.id === call.id) ?? inProgressEntry(call, ctx.runId, ctx.now(), lease);

    let settled: TaskSettlement | undefined;
    const bound: KeelTool = {
      ...taskTool,
      invoke: async () => {
        settled = await settleTask({ call, base, ctx, ...(lease ? { lease } : {}) });
        return { content: settled.display, status: settled.ret.status === "succeeded" || settled.ret.status === "partial" ? "success" : "error" };
      },
    };
    const response = await next({ ...request, tool: bound });
    if (!settled) {
      // An inner wrapper answered the call without running it: the ledger says so.
      ctx.update({ delegations: [notRunEntry(base, messageText(response))] });
      return response;
    }
    ctx.update({ delegations: [settled.entry] });
    // The verdicts live here and in the entry, not in the text the lead model reads.
    setKeelMeta(response, { subagentReturn: settled.ret, delegationId: call.id, ...settled.evidence });
    return response;
  },

  /** The lead's system message gets the delegation section (this request only; the thread keeps its own). */
  wrapModelCall(request, next) {
    return next({ ...request, messages: withDelegationSection(request.messages) });
  },

  /** Calls recorded in progress that never ran (a stop stripped them) end with the run. */
  afterAgent(state, ctx) {
    const answered = answeredCalls(messagesOf(state));
    const dangling = delegationsOf(state).filter((d) => d.status === "in_progress" && d.runId === ctx.runId && !answered.has(d.id));
    if (dangling.length === 0) return;
    return { delegations: dangling.map((d) => cancelEntry(d, "cancelled: the task call was withdrawn by a stop request before it ran")) };
  },
};

/**
 * Bounded, honest delegation (plugins/subagents/README.md): the `task` tool, children built from
 * the subagent stack through the host's `agents` port, subagent-return@1 judged by rule,
 * and the `delegations` ledger.
 *
 * @example
 * { "plugins": ["workspace", "receipts", "subagents", "batch-leasing", "acceptance"], "config": { "subagents": { "maxTurns": 60 } } }
 */
export const subagentsPlugin = definePlugin({
  manifest: subagentsManifest,
  hooks,
  tools: [taskTool],
  /** The report's `delegations`: the lead's delegation ledger (delegation@1 entries), oldest first. */
  report: ({ values }) => ({ delegations: (values.delegations as Record<string, unknown>[] | undefined) ?? [] }),
});

export default subagentsPlugin;

export { childSystemPrompt, fallbackCriteria, neutralizeMarkup, REPORT_CONTRACT, reportContract, WEB_CITATION, type ChildPromptInput } from "./child-prompt.js";
export { judgeChildReturn, partialRuleViolation, type CallerTerms, type ChildEnd, type Interruption, type SubagentReturn } from "./child-return.js";
export { capLabel, displayText, resultBrief, RESULT_BRIEF_CHARS } from "./display.js";
export { checkChildEvidence, childHasReceipts, RECEIPTS_PLUGIN, type ChildEvidence, type EvidenceInput } from "./evidence.js";
export { COMPLETION_NOTE, DELEGATION_SECTION, GAP_GUIDANCE, withDelegationSection } from "./lead-prompt.js";
export { cancelEntry, inProgressEntry, notRunEntry, startsWithNewUserMessage, taskCalls, terminalEntry, type Delegation, type TaskCall } from "./ledger.js";
export { LEDGER_ENTRIES, subagentsConfigSchema, subagentsManifest } from "./manifest.js";
export { readSubagentsOptions, type SubagentsOptions } from "./options.js";
export { findReturn, RETURN_RESULT_TOOL, returnArgsProblems, returnResultSchema, returnResultTool, returnResultToolFor, type FoundReturn, type ReturnArgs } from "./return-result.js";
export { settleTask, type TaskSettlement } from "./run-task.js";
export { superviseChild, type SupervisedRun } from "./supervise.js";
export { parseTaskArgs, TASK_TOOL, taskArgsSchema, taskTool, type TaskArgs } from "./task-tool.js";
