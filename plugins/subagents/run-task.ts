import { lastAssistant } from "../../kernel/loop/message-meta.js";
import type { HookContext, ToolCall } from "../../kernel/plugin/types.js";
import {
  ACCEPTANCE_PORT,
  AGENTS_PORT,
  LEASE_KEEPER_PORT,
  type AcceptancePort,
  type AgentsPort,
  type LeaseKeeperPort,
} from "../../kernel/ports/agents.js";
import type { LeaseV1 } from "../../contracts/lease/v1.js";
import { childSystemPrompt, fallbackCriteria } from "./child-prompt.js";
import { judgeChildReturn, type SubagentReturn } from "./child-return.js";
import { displayText } from "./display.js";
import { checkChildEvidence, childHasReceipts, type ChildEvidence } from "./evidence.js";
import { terminalEntry, type Delegation } from "./ledger.js";
import { optionalPort, readSubagentsOptions } from "./options.js";
import { findReturn, RETURN_RESULT_TOOL, returnResultToolFor } from "./return-result.js";
import { superviseChild } from "./supervise.js";
import { parseTaskArgs } from "./task-tool.js";

export interface TaskSettlement {
  ret: SubagentReturn;
  entry: Delegation;
  /** The task's tool message text. */
  display: string;
  /** The verdicts, for the tool message's metadata (they are in `entry` too, never in `display`). */
  evidence: Omit<ChildEvidence, "lines">;
}

export interface SettleInput {
  call: ToolCall;
  /** The call's ledger entry as it stands (in_progress), the base of the terminal one. */
  base: Delegation;
  lease?: LeaseV1;
  ctx: HookContext;
}

/** A task that ends before any child runs (bad arguments, no runner, unknown type). */
function notRun(input: SettleInput, type: string, message: string): TaskSettlement {
  const ret: SubagentReturn = {
    contract: "subagent-return",
    version: 1,
    status: "failed",
    stopReasons: [],
    text: "",
    error: { type, message, retryable: false },
    completedSteps: [],
    missingSteps: [],
    payload: null,
    suggestions: [],
    retryable: false,
    schemaValid: null,
  };
  const display = displayText(ret, []);
  return { ret, display, entry: terminalEntry({ base: input.base, ret, result: display }), evidence: {} };
}

type TaskEventStatus = "in_progress" | SubagentReturn["status"];

/**
 * Run one granted `task` call to its end: start the child (subagent stack, `return_result`,
 * report contract prompt, the lease's allowance, the parent's signal), emit `task` events,
 * judge its end (subagent-return@1), journal the child's lifecycle `end` with that status,
 * check its citations (when it had receipts) and acceptance criteria, and build the terminal
 * ledger entry and the display text. Never throws for a child's failure.
 */
export async function settleTask(input: SettleInput): Promise<TaskSettlement> {
  const { call, ctx, lease } = input;
  const parsed = parseTaskArgs(call.args);
  if (!parsed.ok) return notRun(input, "invalid_task_arguments", `invalid task arguments: ${parsed.problem}`);
  const args = parsed.args;
  const agents = optionalPort<AgentsPort>(ctx, AGENTS_PORT);
  if (!agents) return notRun(input, "no_child_runner", "this runtime has no `agents` port, so it cannot run subagents");
  if (!agents.types().includes(args.subagentType)) {
    return notRun(input, "unknown_subagent_type", `unknown subagentType \`${args.subagentType}\`; available: ${agents.types().join(", ") || "none"}`);
  }

  const options = readSubagentsOptions(ctx.config);
  const acceptance = optionalPort<AcceptancePort>(ctx, ACCEPTANCE_PORT);
  const criteria = acceptance ? acceptance.normalize(args.acceptanceCriteria ?? []).criteria : fallbackCriteria(args.acceptanceCriteria);
  const receipts = childHasReceipts(ctx, agents, args.subagentType);
  const agentPath = `${ctx.agent}/${call.id}`;
  const event = (phase: "started" | "running" | "terminal", status: TaskEventStatus, usage?: SubagentReturn["usage"]) =>
    ctx.emit("task", { phase, taskId: call.id, agent: agentPath, subagentType: args.subagentType, status, ...(usage ? { usage } : {}) });

  event("started", "in_progress");
  const run = await superviseChild({
    agents,
    ctx,
    timeoutSeconds: options.timeoutSeconds,
    ...(lease ? { lease } : {}),
    ...(lease ? { keeper: optionalPort<LeaseKeeperPort>(ctx, LEASE_KEEPER_PORT) } : {}),
    request: {
      threadId: ctx.threadId,
      runId: ctx.runId,
      agentPath,
      taskId: call.id,
      subagentType: args.subagentType,
      systemPrompt: childSystemPrompt({ args, subagentType: args.subagentType, criteria, criteriaChecked: acceptance !== undefined, receipts }),
      input: args.prompt,
      tools: [returnResultToolFor(receipts)],
      protectedTools: [RETURN_RESULT_TOOL],
      terminalTools: [RETURN_RESULT_TOOL],
      maxTurns: options.maxTurns,
      // The child's lifecycle `end` is journaled below with the judged status, so it agrees with the task event and the ledger.
      journalsEnd: true,
      ...(lease ? { tokenLimit: lease.tokenAllowance, leaseEpoch: lease.epoch } : {}),
      // The parent's lease fence: the child's checkpoints and writes stop with the parent's lease.
      ...(ctx.fence ? { fence: ctx.fence } : {}),
      ...(ctx.user !== undefined ? { user: ctx.user } : {}),
    },
    onStep: (step) => {
      if (step.kind === "model_call" && step.status === "ok") event("running", "in_progress", step.usage);
    },
  });

  if (!run.result) {
    const settled = notRun(input, "child_run_failed", `the child could not run: ${run.failure}`);
    event("terminal", settled.ret.status);
    return settled;
  }
  if (!run.leaseCurrent) {
    // The lease expired: the child was cancelled, or it finished with a now-stale epoch and its own result is refused.
    const stale = run.result.outcome.status !== "cancelled";
    ctx.guard({
      action: stale ? "refuse" : "stop",
      reason: "lease_expired",
      detail: stale
        ? `task ${call.id}: the child's result carries a stale lease epoch and is refused; recorded as failed (lease_expired)`
        : `task ${call.id}: no heartbeat for the lease TTL; the child was cancelled`,
    });
  }
  const found = findReturn(run.result.messages);
  const ret = judgeChildReturn(
    { outcome: run.result.outcome, returned: found?.args ?? null, interruption: run.interruption, usage: run.result.usage },
    {
      ...(args.outputSchema ? { outputSchema: args.outputSchema } : {}),
      ...(args.criticalPath ? { criticalPath: args.criticalPath } : {}),
      ...(args.callerNextAction ? { callerNextAction: args.callerNextAction } : {}),
    },
  );
  run.result.journalEnd?.(ret.status);
  const evidence: ChildEvidence =
    ret.status === "cancelled"
      ? { lines: [] }
      : await checkChildEvidence(
          { report: ret.text, reportMessage: found?.message ?? lastAssistant(run.result.messages), values: run.result.values, criteria, receipts },
          ctx,
        );
  const display = displayText(ret, evidence.lines);
  const hold = run.hold;
  const entry = terminalEntry({
    base: input.base,
    ret,
    result: display,
    ...(evidence.receiptVerdict ? { receiptVerdict: evidence.receiptVerdict } : {}),
    ...(evidence.acceptanceVerdict ? { acceptanceVerdict: evidence.acceptanceVerdict } : {}),
    ...(hold && lease ? { lease: { leaseId: lease.leaseId, epoch: hold.epoch, expiresAt: hold.expiresAt, ...(ctx.fence ? { parentEpoch: ctx.fence.epoch } : {}) } } : {}),
  });
  event("terminal", ret.status, ret.usage);
  const { lines: _lines, ...verdicts } = evidence;
  return { ret, entry, display, evidence: verdicts };
}
