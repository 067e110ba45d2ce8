/**
 * One run as the run-status feed shows it (`GET /keel/feed`; run-feed.ts makes them): wire
 * JSON, snake_case. Types only, with no imports, so the run inspector's browser bundle
 * (inspector/types.ts) reads the same definition without taking anything of the kernel.
 * `Outcome` and `Status` are the run's status@2 payload and record status (run-feed.ts fills
 * them in with the kernel's types; the page with the fields it reads).
 */

export type ActivityKind = "queued" | "model" | "tool" | "subagents" | "retry" | "awaiting_input" | "finished";

export interface SubagentActivity {
  agent_path: string;
  /** The task event's status: `in_progress`, then the child's outcome (`succeeded`, `partial`, `failed`, `cancelled`, `timed_out`). */
  status: string;
}

/** What a run is doing now. */
export interface RunActivity {
  kind: ActivityKind;
  /** `tool`: the tool running, when the stream told its name. */
  tool?: string;
  /** `subagents` (and afterwards, while the lead goes on): every subagent of the run so far, in start order. */
  subagents?: SubagentActivity[];
  /** `retry`: the backoff before the next model call attempt (the guard event's `retryInMs`) and when it ends. */
  retry_in_ms?: number;
  retry_at?: string;
}

export interface RunSummaryOf<Outcome, Status extends string = string> {
  thread_id: string;
  run_id: string;
  assistant_id: string;
  user: string | null;
  status: Status;
  outcome: Outcome | null;
  stop_reasons: string[];
  /** The lead agent's turns so far (a run's turn limit counts these). */
  turns: number;
  /** The lead agent's token usage so far (what the outcome's `usage` counts). */
  tokens: { input: number; output: number; total: number };
  created_at: string;
  updated_at: string;
  ended_at: string | null;
  activity: RunActivity;
}
