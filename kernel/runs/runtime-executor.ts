/**
 * The RunExecutor over a kernel AgentRuntime (createAgentRuntime): the run's input goes
 * to `runtime.run`, its events and journal entries to the manager, and at the end a
 * run-report@1 is built from what the run recorded (its plugin sections by the plugins'
 * `report` hooks). A rollback point is the checkpoint plus, when a plugin of the stack
 * provides the `rollback` port (the workspace plugin does), what that port captures.
 */
import { tmpdir } from "node:os";
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import type { Composition } from "../compose/types.js";
import { RunScope, systemClock, type Clock, type JournalRecord, type ModelRequestRecord, type StreamRequest } from "../loop/run-scope.js";
import type { AgentRuntime, RunOptions } from "../loop/runtime.js";
import type { InterruptPoints, ResumeCommand } from "../loop/pause.js";
import type { ChildAgentResult } from "../ports/agents.js";
import { buildPort, portProvider } from "../ports/resolve.js";
import { ROLLBACK_PORT, type RollbackPort } from "../ports/rollback.js";
import { buildRunReport, withChildren, type RunReportV2 } from "../report/run-report.js";
import { captureCheckpointRollback, type StagedRollback } from "./checkpoint-rollback.js";
import type { RollbackPoint, RunExecutor } from "./executor.js";
import type { RunRecord } from "./types.js";
import { toRuntimeInput } from "./runtime-input.js";
import { checkpointForkStatus, forkFromCheckpoint } from "./checkpoint-fork.js";
import { KeelError } from "../errors.js";

export interface RuntimeExecutorOptions {
  runtime: AgentRuntime;
  /**
   * The checkpointer the runtime was created with (`createAgentRuntime(…, { checkpointer })`).
   * Without it no rollback point can be captured: rollback is unavailable for every run.
   */
  checkpointer?: BaseCheckpointSaver;
  /** The subagent stack's composition, for the report's `composition.subagent`. */
  subagentComposition?: Composition;
  /** Turn budget of runs that ask for none (default: the runtime's own). Keep it within the manager's `maxTurns`. */
  maxTurns?: number;
  /**
   * Adjust a run's report before it is saved, e.g. add delegated children's receipts and
   * usage (tools' `withChildren`). Default: the report as built.
   */
  finishReport?: (report: RunReportV2, context: { run: RunRecord; journal: readonly JournalRecord[] }) => RunReportV2;
  /** Where the `rollback` port keeps its snapshots while their run is active. Default: the OS temp directory. */
  scratchDir?: string;
  clock?: Clock;
}

/**
 * @example
 * const checkpointer = new MemorySaver();
 * const runtime = createAgentRuntime(composition, { model, checkpointer });
 * const executor = createRuntimeExecutor({ runtime, checkpointer });
 */
/** The runtime executor, plus what a host's child runner needs to join children to their run. */
export interface RuntimeExecutor extends RunExecutor {
  /** The live scope of a run, so its children's events and journal interleave with it. */
  scopeFor(runId: string): RunScope | undefined;
  /** Record a finished child (its receipts and usage go into the run's report). */
  recordChild(runId: string, agentPath: string, result: ChildAgentResult): void;
}

export function createRuntimeExecutor(options: RuntimeExecutorOptions): RuntimeExecutor {
  const { runtime } = options;
  const clock = options.clock ?? systemClock;
  const rollback = rollbackPortOf(runtime.composition);
  const live = new Map<string, { scope: RunScope; children: Map<string, ChildAgentResult> }>();
  return {
    scopeFor: (runId) => live.get(runId)?.scope,
    recordChild: (runId, agentPath, result) => void live.get(runId)?.children.set(agentPath, result),

    async execute(run, io) {
      const resuming = run.request.command !== undefined || run.request.input === null || run.request.input === undefined;
      const input = resuming ? null : toRuntimeInput(run.request.input);
      const journal: JournalRecord[] = [];
      const modelRequests: ModelRequestRecord[] = [];
      // Our own scope, so the runtime does not emit `metadata`: the manager already did.
      const scope = new RunScope(run.runId, run.threadId, clock, {
        event: (e) => io.emit(e.event, e.data),
        journal: (entry) => {
          journal.push(entry);
          io.journal(entry);
        },
        modelRequest: (record) => modelRequests.push(record),
        progress: (step) => io.progress?.(step),
      }, streamRequestOf(run.request));
      if (run.request.checkpointId !== undefined) {
        if (!options.checkpointer) throw new KeelError("KEEL_ERR_RUN_FORK_FAILED", "this executor has no checkpointer: a run cannot start from an earlier checkpoint");
        io.fence?.assertHeld("forking the thread's checkpoint");
        await forkFromCheckpoint(options.checkpointer, run.threadId, run.request.checkpointId, { workspace: rollback !== undefined });
      }
      const maxTurns = run.request.maxTurns ?? options.maxTurns;
      const children = new Map<string, ChildAgentResult>();
      live.set(run.runId, { scope, children });
      let result;
      try {
        result = await runtime.run({
          threadId: run.threadId,
          runId: run.runId,
          input,
          signal: io.signal,
          scope,
          streamTokens: wantsTokens(run.request.streamMode),
          // The manager's fence (lost with the lease: checkpoint writes, tools' writes and children stop);
          // an executor driven without one still lets a run-store-aware saver check the epoch.
          fence: io.fence ?? { runId: run.runId, epoch: run.epoch, now: () => clock.now() },
          ...(maxTurns !== undefined ? { maxTurns } : {}),
          ...(run.user ? { user: run.user } : {}),
          ...resumeOptions(run.request),
        });
      } finally {
        live.delete(run.runId);
      }
      const lead = buildRunReport({
        scenario: run.assistantId,
        threadId: run.threadId,
        runId: run.runId,
        result,
        // The manager fills in the events as published on the stream.
        events: [],
        journal,
        modelRequests,
        compositions: { lead: runtime.composition, ...(options.subagentComposition ? { subagent: options.subagentComposition } : {}) },
      });
      // Children's sections come from the subagent stack's plugins (without one: the lead's).
      const built = children.size > 0 ? withChildren(lead, journal, children, options.subagentComposition ?? runtime.composition) : lead;
      const report = options.finishReport ? options.finishReport(built, { run, journal }) : built;
      return { outcome: result.outcome, values: result.values, report };
    },

    async captureRollbackPoint(threadId) {
      if (!options.checkpointer) return null;
      const parts: StagedRollback[] = [];
      try {
        const checkpoint = await captureCheckpointRollback(options.checkpointer, threadId);
        if (!checkpoint) return null;
        parts.push(checkpoint);
        if (rollback) {
          const files = await (await rollback).capture(threadId, { scratchDir: options.scratchDir ?? tmpdir() });
          if (!files) throw new Error("the rollback port could not capture the thread");
          parts.push(files);
        }
      } catch {
        await Promise.all(parts.map((p) => p.release()));
        return null;
      }
      return allOrNothing(parts);
    },

    getThreadState: (threadId) => runtime.getState(threadId),

    async checkpointForkStatus(threadId, checkpointId) {
      return options.checkpointer ? checkpointForkStatus(options.checkpointer, threadId, checkpointId) : "unforkable";
    },

    async purgeThread(_threadId, { checkpointThreads }) {
      const checkpointer = options.checkpointer;
      if (checkpointer) for (const id of checkpointThreads) await checkpointer.deleteThread(id);
    },
  };
}

/** The stack's `rollback` port, when a plugin provides it (a factory may answer a Promise). */
function rollbackPortOf(composition: Composition): Promise<RollbackPort> | undefined {
  if (!portProvider(composition, ROLLBACK_PORT)) return undefined;
  const port = Promise.resolve(buildPort<RollbackPort | Promise<RollbackPort>>(composition, ROLLBACK_PORT));
  port.catch(() => undefined); // a failed port makes each capture null (rollback unavailable), not an unhandled rejection
  return port;
}

/**
 * Every part is staged before any is committed, so a part that cannot be prepared
 * leaves everything as it was. The checkpoint is the first part and commits with one
 * write; the rollback port's part (the workspace: a swap of two renames) commits after it.
 */
function allOrNothing(parts: StagedRollback[]): RollbackPoint {
  return {
    async restore() {
      const prepared: Array<Awaited<ReturnType<StagedRollback["prepare"]>>> = [];
      try {
        for (const part of parts) prepared.push(await part.prepare());
      } catch (error) {
        await Promise.all(prepared.map((p) => p.abort()));
        throw error;
      }
      for (const p of prepared) await p.commit();
    },
    release: async () => void (await Promise.all(parts.map((p) => p.release()))),
  };
}

/** A resume's Command and the run's interrupt points, as the runtime takes them (pause.ts checks the node names). */
function resumeOptions(request: RunRecord["request"]): Pick<RunOptions, "command" | "interrupts"> {
  const interrupts: InterruptPoints = {};
  if (request.interruptBefore !== undefined) interrupts.before = request.interruptBefore as InterruptPoints["before"];
  if (request.interruptAfter !== undefined) interrupts.after = request.interruptAfter as InterruptPoints["after"];
  return {
    ...(request.command !== undefined ? { command: request.command as ResumeCommand } : {}),
    ...(Object.keys(interrupts).length > 0 ? { interrupts } : {}),
  };
}

/**
 * What the run computes for its stream: the modes its client asked for at creation (a later
 * join filters them), LangGraph's default `values` when none; `messages` needs `values`
 * (its `messages/complete` events come from the state, as the LangGraph server does).
 */
export function streamRequestOf(request: RunRecord["request"]): StreamRequest {
  const asked = request.streamMode && request.streamMode.length > 0 ? request.streamMode : DEFAULT_STREAM_MODES;
  return { modes: [...asked], subgraphs: request.streamSubgraphs === true };
}

/** LangGraph's default stream mode. */
export const DEFAULT_STREAM_MODES: readonly string[] = ["values"];

/** Token deltas are streamed only when the client asked for `messages` / `messages-tuple` by name. */
function wantsTokens(modes: readonly string[] | undefined): boolean {
  return modes !== undefined && (modes.includes("messages") || modes.includes("messages-tuple"));
}
