import type { RunFence } from "../ports/fence.js";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { Composition } from "../compose/types.js";
import type { KeelTool } from "../plugin/types.js";
import type { HookRunner } from "./hook-runner.js";
import type { RunScope } from "./run-scope.js";
import type { RunObservation, RunObserver } from "../observe/run-observer.js";
import type { RunError, StopReasonEntry } from "./status.js";
import type { InterruptPoints } from "./pause.js";

/** Kernel-private bookkeeping of one agent run, kept in the `__keel` state key (checkpointed). */
export interface LoopState {
  /** Which run's dependencies this state belongs to (`<runId>|<agent>`). */
  runKey: string;
  started: boolean;
  /** Model calls made in this run (retries excluded). */
  turn: number;
  /** How many `stopReasons` entries the kernel has already acted on. */
  stopsSeen: number;
  /** Set when the next model call must be the forced final one; the reasons why. */
  forced: StopReasonEntry[] | null;
  /** After the tools step, end (a forced final answer kept a protected call, or a terminal tool ran). */
  endAfterTools: boolean;
  route: "agent" | "tools" | "end";
  error: RunError | null;
  /** The afterModel chain of the newest model answer paused (`interrupt()`): the next agent step runs it again, without a model call. */
  afterModelPaused?: boolean;
}

export function freshLoopState(runKey: string): LoopState {
  return { runKey, started: false, turn: 0, stopsSeen: 0, forced: null, endAfterTools: false, route: "agent", error: null };
}

export interface BoundTool {
  tool: KeelTool;
  /** The plugin that supplied it (its config reaches the tool), or `runtime` for tools passed in. */
  owner: string;
}

/** Everything a node needs for one run, looked up by run id. */
export interface RunDeps {
  composition: Composition;
  model: BaseChatModel;
  tools: Map<string, BoundTool>;
  maxTurns: number;
  protectedTools: ReadonlySet<string>;
  terminalTools: ReadonlySet<string>;
  scope: RunScope;
  hooks: HookRunner;
  agent: string;
  threadId: string;
  signal: AbortSignal;
  /** The run's lease fence (tools and hooks see it as `ctx.fence`). */
  fence?: RunFence;
  /** The run's user (hooks and tools see it as `ctx.user`). */
  user?: string;
  port<T>(name: string): T;
  /** Stream model tokens as `messages` events (the model is called with `stream`). */
  streamTokens: boolean;
  /** Whether the channel values this run started from have been frozen (once per run, when enforcing). */
  historyFrozen: boolean;
  /** Who observes this run (handed to the tools' context, so a child run started by a tool reports to it too). */
  observer: RunObserver | undefined;
  /** This run's observation: its model and tool calls are reported to it. */
  observation: RunObservation;
  /** Where the run pauses (LangGraph's interruptBefore / interruptAfter on `agent`, `tools`). */
  interrupts?: InterruptPoints;
}
