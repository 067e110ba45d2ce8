/**
 * The run-status feed (kernel/runs/README.md, "The run-status feed"): one `RunSummary` per
 * change of a run — admitted, claimed, each turn, each change of what it is doing now,
 * its end — published on one shared log of the stream bridge (`FEED_LOG_ID`), so every
 * worker's runs reach every reader (the gateway's `GET /keel/feed`). The summaries are
 * derived from what the run already produces — its record at admission, claim and end,
 * its stream events and journal entries while it runs — never by reading the store per event.
 */
import { isRecord } from "../../contracts/plain-object.js";
import type { StatusV2Payload } from "../loop/status.js";
import type { Clock, StepProgress } from "../loop/run-scope.js";
import type { BackgroundLog } from "./run-output.js";
import type { JournalEntry, RunRecord, RunRecordStatus, RunStore, StreamBridge, StreamEvent } from "./types.js";
import type { ActivityKind, RunActivity, RunSummaryOf } from "./run-summary.js";

/** The bridge log every worker publishes run summaries on (not a run: no store record has this id). */
export { FEED_LOG_ID } from "./feed-log-id.js";
import { FEED_LOG_ID } from "./feed-log-id.js";
/** The event name of a summary on the feed log (and on `GET /keel/feed`). */
export const FEED_RUN_EVENT = "run";

export type { ActivityKind, RunActivity, SubagentActivity } from "./run-summary.js";

/** One run as the feed shows it (snake_case: it is wire JSON; the shape is run-summary.ts's). */
export type RunSummary = RunSummaryOf<StatusV2Payload, RunRecordStatus>;

const ACTIVE = new Set<RunRecordStatus>(["pending", "running"]);
const LEAD = "lead";

/** The stop reason a paused run (waiting for a human's answer) carries in its outcome. */
export const AWAITING_INPUT = "awaiting_input";

/** A summary from the record alone (a snapshot, an admission, a run ended by another worker or the reaper). */
export function summaryOfRecord(run: RunRecord, known?: Pick<RunSummary, "turns" | "tokens" | "activity">): RunSummary {
  const ended = !ACTIVE.has(run.status);
  const usage = run.outcome?.usage;
  const tokens = known?.tokens ?? { input: usage?.inputTokens ?? 0, output: usage?.outputTokens ?? 0, total: usage?.totalTokens ?? 0 };
  return {
    thread_id: run.threadId,
    run_id: run.runId,
    assistant_id: run.assistantId,
    user: run.user || null,
    status: run.status,
    outcome: run.outcome ?? null,
    stop_reasons: (run.outcome?.stopReasons ?? []).map((r) => r.reason),
    turns: known?.turns ?? 0,
    tokens: ended && usage ? { input: usage.inputTokens, output: usage.outputTokens, total: usage.totalTokens } : tokens,
    created_at: run.createdAt,
    updated_at: run.updatedAt,
    ended_at: ended ? run.updatedAt : null,
    activity: ended ? finishedActivity(run.outcome, known?.activity) : run.status === "pending" ? { kind: "queued" } : (known?.activity ?? { kind: "model" }),
  };
}

function finishedActivity(outcome: StatusV2Payload | undefined, last: RunActivity | undefined): RunActivity {
  const kind: ActivityKind = outcome?.stopReasons.some((r) => r.reason === AWAITING_INPUT) ? "awaiting_input" : "finished";
  return last?.subagents ? { kind, subagents: last.subagents } : { kind };
}

/**
 * What one running run on this worker is doing, from its events and journal entries:
 * `updates` of the lead's nodes (the agent node routing to tools, the tools node back to
 * the model), `task` events (subagents), `guard` retries (`retryInMs`), the journal's
 * model calls (turns, tokens) and tool calls (which tool finished).
 */
export class RunActivityTracker {
  private turns = 0;
  private tokens = { input: 0, output: 0, total: 0 };
  private activity: RunActivity = { kind: "model" };
  private readonly subagents = new Map<string, string>();
  /** Tool calls the model asked for in the current tools step, not finished yet (names, in order). */
  private pendingTools: string[] = [];

  constructor(
    private readonly run: RunRecord,
    private readonly clock: Clock,
  ) {}

  /** The summary now (status `running`). */
  summary(): RunSummary {
    const now = new Date(this.clock.now()).toISOString();
    return { ...summaryOfRecord({ ...this.run, status: "running", updatedAt: now }, this.known()), updated_at: now };
  }

  known(): Pick<RunSummary, "turns" | "tokens" | "activity"> {
    return { turns: this.turns, tokens: { ...this.tokens }, activity: this.withSubagents(this.activity) };
  }

  /** Fold one stream event in; true when the summary changed. */
  event(name: string, data: unknown): boolean {
    const before = this.fingerprint();
    if (name === "updates") this.onUpdates(data);
    else if (name === "task") this.onTask(data);
    else if (name === "guard") this.onGuard(data);
    return this.fingerprint() !== before;
  }

  /** Fold one journal entry in; true when the summary changed. */
  journal(entry: JournalEntry): boolean {
    const before = this.fingerprint();
    if (entry.kind === "model_call" && entry.agent === LEAD) {
      if (entry.turn > this.turns) this.turns = entry.turn;
      if (entry.usage) {
        this.tokens.input += entry.usage.inputTokens;
        this.tokens.output += entry.usage.outputTokens;
        this.tokens.total += entry.usage.totalTokens;
      }
      if (this.activity.kind === "retry") this.activity = { kind: "model" };
    } else if (entry.kind === "tool_call" && entry.agent === LEAD && this.activity.kind === "tool") {
      const at = entry.name === undefined ? -1 : this.pendingTools.indexOf(entry.name);
      if (at >= 0) this.pendingTools.splice(at, 1);
      const next = this.pendingTools[0];
      this.activity = next === undefined ? { kind: "tool" } : { kind: "tool", tool: next };
    }
    return this.fingerprint() !== before;
  }

  private onUpdates(data: unknown): void {
    if (!isRecord(data)) return;
    for (const [node, update] of Object.entries(data)) {
      if (!isRecord(update)) continue;
      const agent = typeof update.agent === "string" ? update.agent : LEAD;
      if (agent !== LEAD) continue;
      if (typeof update.turn === "number" && update.turn > this.turns) this.turns = update.turn;
      const route = typeof update.route === "string" ? update.route : undefined;
      if (node === "agent") {
        const tools = Array.isArray(update.tools) ? update.tools.filter((t): t is string => typeof t === "string") : toolCallNames(update.messages);
        if (route === "tools" || (route === undefined && tools.length > 0)) {
          this.pendingTools = tools;
          this.activity = tools[0] === undefined ? { kind: "tool" } : { kind: "tool", tool: tools[0] };
        } else if (route === "agent") this.activity = { kind: "model" };
      } else if (node === "tools" && route !== "end") {
        this.pendingTools = [];
        this.activity = { kind: "model" };
      }
    }
  }

  private onTask(data: unknown): void {
    if (!isRecord(data) || typeof data.agent !== "string" || typeof data.status !== "string") return;
    this.subagents.set(data.agent, data.status);
    const running = [...this.subagents.values()].some((status) => status === "in_progress");
    if (running) this.activity = { kind: "subagents" };
    else if (this.activity.kind === "subagents") this.activity = { kind: "tool" };
  }

  private onGuard(data: unknown): void {
    if (!isRecord(data) || data.action !== "retry" || typeof data.retryInMs !== "number") return;
    if (typeof data.agent === "string" && data.agent !== LEAD) return;
    const at = new Date(this.clock.now() + data.retryInMs).toISOString();
    this.activity = { kind: "retry", retry_in_ms: data.retryInMs, retry_at: at };
  }

  private withSubagents(activity: RunActivity): RunActivity {
    if (this.subagents.size === 0) return { ...activity };
    return { ...activity, subagents: [...this.subagents].map(([agent_path, status]) => ({ agent_path, status })) };
  }

  private fingerprint(): string {
    return JSON.stringify([this.turns, this.tokens, this.activity, [...this.subagents]]);
  }
}

/** Tool names of the last AI message's `tool_calls` in a LangGraph-style `updates` payload (`{ messages: [...] }`). */
function toolCallNames(messages: unknown): string[] {
  if (!Array.isArray(messages)) return [];
  const last = messages[messages.length - 1] as unknown;
  if (!isRecord(last)) return [];
  const fields = isRecord(last.kwargs) ? last.kwargs : last;
  const calls = fields.tool_calls;
  if (!Array.isArray(calls)) return [];
  return calls.flatMap((call) => (isRecord(call) && typeof call.name === "string" ? [call.name] : []));
}

/**
 * Publishes summaries on the feed log, in call order, never failing the run: a publish that
 * fails is logged and the run goes on (the next summary of the run replaces it anyway).
 * Tracks this worker's running runs, and wraps the manager's bridge so that each stream
 * event of a tracked run and each run's `end` (whoever publishes it: the worker, the
 * reaper, a cancel, the recovery sweep) update the feed.
 */
export class RunFeedPublisher {
  private readonly trackers = new Map<string, RunActivityTracker>();
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly bridge: StreamBridge,
    private readonly store: Pick<RunStore, "getRun">,
    private readonly clock: Clock,
    private readonly log: BackgroundLog,
  ) {}

  /** A run was admitted (pending, or running when the admission started it). */
  admitted(run: RunRecord): void {
    this.publish(summaryOfRecord(run));
  }

  /** This worker claimed the run: track it until its `end`. */
  claimed(run: RunRecord): void {
    const tracker = new RunActivityTracker(run, this.clock);
    this.trackers.set(run.runId, tracker);
    this.publish(tracker.summary());
  }

  journal(runId: string, entry: JournalEntry): void {
    const tracker = this.trackers.get(runId);
    if (tracker?.journal(entry)) this.publish(tracker.summary());
  }

  /** A step of a tracked run finished (the executor's local signal, whatever stream modes the run computes). */
  progress(runId: string, step: StepProgress): void {
    const tracker = this.trackers.get(runId);
    if (tracker?.event("updates", { [step.node]: { agent: step.agent, turn: step.turn, route: step.route, tools: step.tools } })) this.publish(tracker.summary());
  }

  /** The manager's bridge with the feed's taps on `publish` (a tracked run's events) and `end`. */
  wrap(bridge: StreamBridge): StreamBridge {
    const feed = this;
    const wrapped: StreamBridge = Object.create(bridge) as StreamBridge;
    wrapped.publish = async (runId, event, data, options) => {
      const published = await bridge.publish(runId, event, data, options);
      const tracker = feed.trackers.get(runId);
      if (tracker?.event(event, data)) feed.publish(tracker.summary());
      return published;
    };
    wrapped.end = async (runId, options) => {
      const ended = await bridge.end(runId, options);
      feed.ended(runId);
      return ended;
    };
    // Methods the wrapper does not tap are looked up on the bridge at each call (a test's spy
    // installed later is seen) and keep it as `this`; an optional one only when the bridge has it.
    const target = bridge as unknown as Record<string, (...args: unknown[]) => unknown>;
    for (const name of ["subscribe", "read", "deleteRuns", "publishControl", "onControl", "close", "ping", "readLatest"] as const) {
      if (typeof target[name] === "function") (wrapped as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => target[name]!(...args);
    }
    return wrapped;
  }

  /** The run's `end` was published: one read of its final record, then its last summary. */
  private ended(runId: string): void {
    const tracker = this.trackers.get(runId);
    this.trackers.delete(runId);
    this.chain = this.chain.then(async () => {
      try {
        const run = await this.store.getRun(runId);
        if (run) await this.bridge.publish(FEED_LOG_ID, FEED_RUN_EVENT, summaryOfRecord(run, tracker?.known()));
      } catch (error) {
        this.log(`run ${runId}: publishing its final summary on the run-status feed failed`, error);
      }
    });
  }

  private publish(summary: RunSummary): void {
    const send = () =>
      this.bridge.publish(FEED_LOG_ID, FEED_RUN_EVENT, summary).then(
        () => undefined,
        (error: unknown) => this.log(`run ${summary.run_id}: publishing its summary on the run-status feed failed`, error),
      );
    // A bridge that keeps call order gets it at once; others one at a time, in order.
    if (this.bridge.orderedPublish) {
      const sent = send();
      this.chain = this.chain.then(() => sent);
    } else this.chain = this.chain.then(send);
  }

  /** Resolves once every summary handed over so far is published (or failed). */
  drain(): Promise<void> {
    return this.chain;
  }
}

/** Whether a feed event's data is a run summary (a defensive check on what another worker wrote). */
export function isRunSummary(data: unknown): data is RunSummary {
  return isRecord(data) && typeof data.run_id === "string" && typeof data.thread_id === "string" && typeof data.status === "string";
}

/** The feed events of a log page, newest summary per run last (for overlaying a snapshot). */
export function latestSummaries(events: readonly StreamEvent[]): Map<string, RunSummary> {
  const latest = new Map<string, RunSummary>();
  for (const event of events) if (event.event === FEED_RUN_EVENT && isRunSummary(event.data)) latest.set(event.data.run_id, event.data);
  return latest;
}
