import type { BaseMessage } from "@langchain/core/messages";
import type { StopReasonEntry } from "../../kernel/loop/status.js";
import { definePlugin } from "../../kernel/plugin/define-plugin.js";
import type { ChannelUpdate, HookContext, Hooks } from "../../kernel/plugin/types.js";
import { AGENTS_PORT, type AgentsPort } from "../../kernel/ports/agents.js";
import { KeelError } from "../../kernel/errors.js";
import { decideBatch, readLeasingOptions, type Decision } from "./grants.js";
import { createLeaseKeeper } from "./lease-keeper.js";
import { batchLeasingManifest } from "./manifest.js";
import { delegationsOf, endedLeases, leasesOf, orphanedLeases, usedTokens } from "./reconcile.js";
import { batchOf, grantLease, leadStop, refusalMessage, refusedEntry, TASK_TOOL, toRefusedCall, type RefusedCall } from "./refusals.js";

interface LeaseBatch {
  runId: string;
  turn: number;
  granted: string[];
  refused: RefusedCall[];
}

/** The host's child runner knows the subagent stack's token limit; without it the budget share is the allowance. */
function agentsPort(ctx: HookContext): AgentsPort | undefined {
  try {
    return ctx.port<AgentsPort>(AGENTS_PORT);
  } catch (error) {
    if (error instanceof KeelError && error.code === "KEEL_ERR_COMPOSE_MISSING_PORT") return undefined;
    throw error;
  }
}

/** A stop requested in this step strips the message's tool calls: nothing of the batch will run. */
function stopRequestedNow(state: Readonly<Record<string, unknown>>, turn: number): boolean {
  const stops = (state.stopReasons as StopReasonEntry[] | undefined) ?? [];
  return stops.some((s) => s.turn === turn && (s.request === "final" || s.request === "end"));
}

const hooks: Hooks = {
  /** Leases still active from an earlier run of the thread belong to children that are gone. */
  beforeAgent(state, ctx) {
    const orphaned = orphanedLeases(leasesOf(state), ctx.runId);
    return orphaned.length > 0 ? { leases: orphaned } : undefined;
  },

  /** Release the leases of ended children, then grant or refuse the `task` calls of the new message. */
  afterModel(state, ctx) {
    const options = readLeasingOptions(ctx.config);
    const delegations = delegationsOf(state);
    const ended = endedLeases(leasesOf(state), delegations, ctx.runId);
    const update: ChannelUpdate = ended.length > 0 ? { leases: ended } : {};
    const calls = batchOf((state.messages as BaseMessage[] | undefined) ?? []);
    if (calls.length === 0 || stopRequestedNow(state, ctx.turn)) return ended.length > 0 ? update : undefined;

    const current = new Map(leasesOf(state).map((l) => [l.leaseId, l]));
    for (const lease of ended) current.set(lease.leaseId, lease);
    const agents = agentsPort(ctx);
    const { decisions } = decideBatch(
      {
        calls,
        runLeases: [...current.values()].filter((l) => l.runId === ctx.runId),
        usedBy: (lease) => usedTokens(delegations, lease),
        childBudget: (type) => agents?.tokenBudget(type),
      },
      options,
    );
    const now = ctx.now();
    const granted = decisions.filter((d): d is Extract<Decision, { granted: true }> => d.granted);
    const refused = decisions.filter((d): d is Extract<Decision, { granted: false }> => !d.granted).map((d) => ({ decision: d, refused: toRefusedCall(d) }));
    for (const { refused: r } of refused) ctx.guard({ action: "refuse", reason: r.reason, detail: `task ${r.taskId}: ${r.detail}` });

    update.leases = [...ended, ...granted.map((d) => grantLease(d, ctx.runId, ctx.agent, now, options.leaseTtlMs, ctx.fence?.epoch))];
    const batch: LeaseBatch = { runId: ctx.runId, turn: ctx.turn, granted: granted.map((d) => d.call.id), refused: refused.map((r) => r.refused) };
    update.leaseBatch = batch;
    if (delegations && refused.length > 0) update.delegations = refused.map((r) => refusedEntry(r.refused, r.decision.call, ctx.runId, ctx.turn, now));
    return update;
  },

  /**
   * Answer a refused `task` call with its error result instead of running it (never dropped);
   * when no call of the batch was granted, the lead also gets the stop reason and must finish.
   */
  async wrapToolCall(request, next, ctx) {
    if (request.toolCall.name !== TASK_TOOL) return next(request);
    const batch = request.state.leaseBatch as LeaseBatch | undefined;
    if (!batch || batch.runId !== ctx.runId || batch.turn !== ctx.turn) return next(request);
    const refused = batch.refused.find((r) => r.taskId === request.toolCall.id);
    if (!refused) return next(request);
    if (batch.granted.length === 0) ctx.update({ stopReasons: [leadStop(refused, ctx.turn)] });
    return refusalMessage(refused);
  },

  afterAgent(state, ctx) {
    const ended = endedLeases(leasesOf(state), delegationsOf(state), ctx.runId);
    return ended.length > 0 ? { leases: ended } : undefined;
  },
};

/**
 * Bounded delegation (plugins/batch-leasing/README.md): per-batch grants, lease@1 per granted
 * call, refusals answered as tool results, and the `lease-keeper` port that expires the
 * lease of a child that stopped making progress.
 *
 * @example
 * { "plugins": ["workspace", "subagents", "batch-leasing"], "config": { "batch-leasing": { "concurrency": 2, "total": 4 } } }
 */
export const batchLeasingPlugin = definePlugin({
  manifest: batchLeasingManifest,
  hooks,
  services: {
    "lease-keeper": (config) => {
      const options = readLeasingOptions(config);
      return createLeaseKeeper({ leaseTtlMs: options.leaseTtlMs, heartbeatMs: options.heartbeatMs });
    },
  },
});

export default batchLeasingPlugin;

export { CONCURRENCY_RANGE, decideBatch, readLeasingOptions, spentTokens, TOTAL_RANGE, type BatchCall, type BatchInput, type Decision, type LeasingOptions, type RefusalReason } from "./grants.js";
export { createLeaseKeeper, isoPlus } from "./lease-keeper.js";
export { batchLeasingConfigSchema, batchLeasingManifest, leaseBatchSchema, LEASES_KEPT } from "./manifest.js";
export { endedLeases, orphanedLeases, usedTokens } from "./reconcile.js";
export { batchOf, grantLease, leadStop, refusalMessage, refusalText, refusedEntry, toRefusedCall, type RefusedCall } from "./refusals.js";
