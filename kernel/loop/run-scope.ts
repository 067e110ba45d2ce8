import type { TokenUsage } from "./normalize.js";

/** Milliseconds since the epoch; scenarios use a fixed, stepping clock so reports repeat. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that starts at `startMs` and advances 1 ms per reading: deterministic and monotonic. */
export function steppingClock(startMs: number): Clock {
  let t = startMs;
  return { now: () => t++ };
}

export interface StreamEventRecord {
  id: string;
  runId: string;
  event: string;
  data: unknown;
  /** The run's lease epoch the event was published under, when the publisher gave one. */
  epoch?: number;
}

export interface JournalRecord {
  seq: number;
  at: string;
  runId: string;
  agent: string;
  turn: number;
  kind: "model_call" | "tool_call" | "guard" | "lifecycle" | "approval";
  name?: string;
  /** An `approval` entry: the tool call it is about. */
  toolCallId?: string;
  /** An `approval` entry: who decided (the run's user). */
  by?: string;
  status: string;
  argsSha256?: string;
  outputSha256?: string;
  usage?: TokenUsage;
  durationMs: number;
  /** A `retry` guard entry: the delay scheduled before the next attempt, in ms. */
  retryInMs?: number;
  /** The run's lease epoch the entry was written under (a child's entries: its parent run's). */
  epoch?: number;
  /** A delegated child's entry: the epoch of the child's own delegation lease (lease@1). */
  leaseEpoch?: number;
}

/** What the provider would have received for one model call attempt. */
export interface ModelRequestRecord {
  agent: string;
  turn: number;
  messages: import("@langchain/core/messages").BaseMessage[];
  tools: string[];
}

/** Where a run's observable output goes (a stream bridge, a report builder, a test). */
export interface RunSink {
  event?(event: StreamEventRecord): void;
  journal?(entry: JournalRecord): void;
  modelRequest?(record: ModelRequestRecord): void;
  /** What a step just did (local only: never streamed, never journaled); the run-status feed reads it. */
  progress?(step: StepProgress): void;
}

/** One finished step of an agent: the node, where it routes next, and the tools it calls next. */
export interface StepProgress {
  node: "agent" | "tools";
  agent: string;
  turn: number;
  route: string;
  /** The tools the next step runs (the model's tool calls), when `route` is `tools`. */
  tools: string[];
}

/**
 * Which of LangGraph's stream modes a run computes (what its client asked for when it was
 * created): `values`, `updates`, `checkpoints`, `tasks`, `debug` come from the graph's own
 * stream (kernel/loop/stream-graph.ts); Keel's own events (`messages`, `custom`, `guard`,
 * `task`, `error`) are emitted whatever the modes. `subgraphs`: a child agent's graph events
 * go out too, under its namespace (`updates|tools:<taskToolCallId>`).
 */
export interface StreamRequest {
  modes: readonly string[];
  subgraphs: boolean;
}

/** No graph stream mode: only Keel's own events (a scenario run, a test). */
export const NO_GRAPH_STREAM: StreamRequest = Object.freeze({ modes: Object.freeze([]), subgraphs: false });

/**
 * Shared by a run and its children: one clock, one event id sequence (`<ms>-<seq>`),
 * one journal sequence, so a run's records interleave in a single order.
 */
export class RunScope {
  private eventSeq = 0;
  private journalSeq = 0;

  constructor(
    readonly runId: string,
    readonly threadId: string,
    readonly clock: Clock,
    readonly sink: RunSink,
    /** What the run streams (shared with its children, so they follow the run's request). */
    readonly stream: StreamRequest = NO_GRAPH_STREAM,
  ) {}

  isoNow(): string {
    return new Date(this.clock.now()).toISOString();
  }

  emit(event: string, data: unknown): StreamEventRecord {
    const record = { id: `${this.clock.now()}-${this.eventSeq++}`, runId: this.runId, event, data };
    this.sink.event?.(record);
    return record;
  }

  journal(entry: Omit<JournalRecord, "seq" | "at" | "runId">): void {
    this.sink.journal?.({ seq: ++this.journalSeq, at: this.isoNow(), runId: this.runId, ...entry });
  }

  recordModelRequest(record: ModelRequestRecord): void {
    this.sink.modelRequest?.(record);
  }

  progress(step: StepProgress): void {
    this.sink.progress?.(step);
  }
}
