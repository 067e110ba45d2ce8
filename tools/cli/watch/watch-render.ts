import type { RunSummary } from "../../../kernel/runs/run-feed.js";

/** What a run is allowed (its token budget, its turn limit), when the gateway says it. */
export interface RunLimits {
  tokens?: number;
  turns?: number;
}

const ACTIVE = new Set(["pending", "running"]);

export function isEnded(summary: Pick<RunSummary, "status">): boolean {
  return !ACTIVE.has(summary.status);
}

/** `HH:MM:SS` (UTC) of an ISO time. */
function clockOf(iso: string): string {
  return iso.slice(11, 19);
}

/** What the run is doing now, in words; a retry's countdown from `now`. */
export function activityText(summary: RunSummary, now: number): string {
  const a = summary.activity;
  const subagents = (a.subagents ?? []).map((s) => `${s.agent_path} ${s.status}`).join(", ");
  switch (a.kind) {
    case "queued":
      return "queued";
    case "model":
      return "model call";
    case "tool":
      return a.tool ? `tool ${a.tool}` : "tools";
    case "subagents":
      return `waiting on subagents: ${subagents}`;
    case "retry": {
      const left = a.retry_at ? Math.max(0, Date.parse(a.retry_at) - now) : (a.retry_in_ms ?? 0);
      return `retry in ${(left / 1000).toFixed(1)}s${a.retry_in_ms !== undefined ? ` (backoff ${a.retry_in_ms} ms)` : ""}`;
    }
    case "awaiting_input":
      return "awaiting input";
    default:
      return "finished";
  }
}

/** The run's progress in one line (without the time): `THREAD/RUN STATUS turn N[/MAX] tokens N[/BUDGET] ACTIVITY`. */
export function progressText(summary: RunSummary, limits: RunLimits = {}, now = Date.now()): string {
  const turns = `turn ${summary.turns}${limits.turns !== undefined ? `/${limits.turns}` : ""}`;
  const tokens = `tokens ${summary.tokens.total}${limits.tokens !== undefined ? `/${limits.tokens}` : ""}`;
  const subagents = summary.activity.kind !== "subagents" && summary.activity.subagents?.length ? ` · subagents: ${summary.activity.subagents.map((s) => `${s.agent_path} ${s.status}`).join(", ")}` : "";
  return `${summary.thread_id}/${summary.run_id} ${summary.status} ${turns} ${tokens} ${activityText(summary, now)}${subagents}`;
}

/** One log line: the summary's time, then its progress. */
export function logLine(summary: RunSummary, limits: RunLimits = {}, now = Date.now()): string {
  return `${clockOf(summary.updated_at)} ${progressText(summary, limits, now)}`;
}

/** The last line for a run that ended: `outcome STATUS[ (stop reasons)] turns N tokens N`. */
export function outcomeLine(summary: RunSummary): string {
  const outcome = summary.outcome?.status ?? summary.status;
  const reasons = summary.stop_reasons.length > 0 ? ` (${summary.stop_reasons.join(", ")})` : "";
  const error = summary.outcome?.error ? ` error ${summary.outcome.error.type}: ${summary.outcome.error.message}` : "";
  return `outcome ${outcome}${reasons} turns ${summary.turns} tokens ${summary.tokens.total}${error}`;
}

/**
 * A redrawn terminal status: each `draw` replaces the previous block (cursor up, clear to the
 * end of the screen), so the block stays in place while the run progresses.
 */
export class StatusBlock {
  private height = 0;
  constructor(private readonly write: (text: string) => void) {}

  draw(lines: readonly string[]): void {
    const erase = this.height > 0 ? `\x1b[${this.height}A\r\x1b[0J` : "";
    this.write(erase + lines.map((line) => `${line}\n`).join(""));
    this.height = lines.length;
  }
}
