/**
 * The end of a run, in a fixed order: journal flush, checkpoint (the
 * runtime checkpointed as it went; a rollback restores the pre-run one here), report,
 * run status (CAS on owner+epoch), thread status, then `end` — the commit marker. A
 * reader that saw `end` can trust the run record; one that did not must keep waiting.
 *
 * Nothing terminal is written without the lease: the lease is renewed first (which also
 * gives the writes a full TTL), and when the CAS still fails a newer writer (the
 * reaper) won — its outcome stands, this worker publishes nothing more, and a report
 * it already saved is corrected to the winning outcome, so nothing reads as a success.
 *
 * A journal that cannot be written is not a reason to give the run up: the flush never
 * throws, the outcome is the real one, `end` follows at once, and the report carries
 * `journalIncomplete: true` with `journalGap` (what the store's journal lacks).
 */
import { RUN_STATUS_OF_OUTCOME } from "../../contracts/run/v1.js";
import type { StatusV2Payload } from "../loop/status.js";
import { withJournalGap } from "../report/run-report.js";
import type { ExecutionResult, RollbackPoint } from "./executor.js";
import type { LeaseHeartbeat } from "./lease-heartbeat.js";
import { isRecord } from "../../contracts/plain-object.js";
import { isoNow, settleThreadStatus, type ManagerContext } from "./manager-context.js";
import { cancelledOutcome, executorFailedOutcome, type CancelRequest } from "./outcomes.js";
import type { RunOutput } from "./run-output.js";
import type { RunRecord } from "./types.js";

export interface FinalizeInput {
  run: RunRecord;
  output: RunOutput;
  heartbeat: LeaseHeartbeat;
  result: ExecutionResult | undefined;
  /** What the executor threw, when it threw. */
  failure: unknown;
  /** False when a cancel arrived before the executor started (nothing to undo). */
  executorStarted: boolean;
  rollbackPoint: RollbackPoint | null;
  /** The cancel request, if any; after this call later cancels are ignored. */
  takeCancel(): CancelRequest | null;
}

export async function finalizeRun(ctx: ManagerContext, input: FinalizeInput): Promise<void> {
  const { run, output, heartbeat } = input;
  await output.drainEvents();
  if (!(await heartbeat.renew())) {
    await flushAfterLeaseLoss(ctx, input);
    return;
  }

  const cancel = input.takeCancel();
  let outcome: StatusV2Payload;
  if (cancel) {
    const detail = cancel.rollback ? await rollBack(ctx, input) : undefined;
    outcome = cancelledOutcome(cancel.cause, input.result?.outcome, detail);
  } else if (input.result) {
    outcome = input.result.outcome;
  } else {
    outcome = executorFailedOutcome(input.failure ?? new Error("the executor returned no outcome"));
    output.emit("error", { error: outcome.error!.type, message: outcome.error!.message, type: outcome.error!.type });
  }

  await output.drainEvents();
  // Never fatal: entries the store refused are reported as missing; the outcome stands.
  await output.flushJournal();
  const report = reportFor(input.result?.report, outcome, output);
  if (report !== undefined) await ctx.store.saveReport(run.runId, report);

  const completed = await ctx.store.completeRun(run.runId, ctx.workerId, run.epoch, { status: RUN_STATUS_OF_OUTCOME[outcome.status], outcome }, isoNow(ctx.clock));
  if (!completed) {
    output.silence();
    await correctReport(ctx, run.runId, report);
    ctx.log(`run ${run.runId}: the terminal write was refused (another writer won the run); its outcome stands`);
    return;
  }
  ctx.observer.runEnded(RUN_STATUS_OF_OUTCOME[outcome.status], "worker");
  await settleThreadStatus(ctx, run.threadId, run.runId, outcome);
  await ctx.bridge.end(run.runId, { epoch: run.epoch });
}

/** Undo the run's changes; returns the detail for the cancelled outcome's message. */
async function rollBack(ctx: ManagerContext, input: FinalizeInput): Promise<string> {
  if (!input.executorStarted) return "it had not started, so there was nothing to undo";
  const point = input.rollbackPoint;
  if (!point) return "no rollback point had been captured, so the thread keeps the run's changes";
  const started = ctx.clock.now();
  const journal = (status: string) =>
    input.output.journal({ seq: 0, at: isoNow(ctx.clock), runId: input.run.runId, agent: "lead", turn: 0, kind: "lifecycle", name: "rollback", status, durationMs: ctx.clock.now() - started });
  try {
    await point.restore();
    journal("restored");
    return "the thread's checkpoint and workspace were restored to their state before the run";
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    journal("failed");
    input.output.emit("error", { error: "rollback_failed", message, type: "rollback_failed" });
    return `the rollback failed (${message}); the thread keeps the run's changes`;
  }
}

/**
 * The report as saved: a run-report@1 gets the final outcome (a cancel overrides what the
 * executor saw) and the events exactly as published on the stream — everything before
 * `end`, which comes after the report by design.
 */
function reportFor(report: unknown, outcome: StatusV2Payload, output: RunOutput): unknown {
  if (!isRecord(report)) return report;
  if (report.contract !== "run-report") return report;
  const events = output.published.map((e) => ({ id: e.id, runId: e.runId, event: e.event, data: e.data }));
  return withJournalGap({ ...report, outcome, events }, output.journalGap());
}

async function correctReport(ctx: ManagerContext, runId: string, report: unknown): Promise<void> {
  if (!isRecord(report)) return;
  const winner = await ctx.store.getRun(runId);
  if (winner?.outcome) await ctx.store.saveReport(runId, { ...report, outcome: winner.outcome });
}

/**
 * Fenced: a worker that lost its lease writes nothing more — no journal entry (the flush
 * drops what is buffered, or the store refuses it), no event, nothing terminal.
 */
async function flushAfterLeaseLoss(ctx: ManagerContext, input: FinalizeInput): Promise<void> {
  input.output.silence();
  input.takeCancel();
  await input.output.flushJournal();
  const stored = await ctx.store.getRun(input.run.runId).catch(() => null);
  const ended = stored && stored.status !== "pending" && stored.status !== "running" ? ` (it already ended \`${stored.status}\`)` : " (the reaper ends the run)";
  ctx.log(`run ${input.run.runId}: the lease was lost; no terminal state written${ended}`);
}
