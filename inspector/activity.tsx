import type { RunSummary } from "./types.js";
import { duration } from "./format.js";

/** What a run is doing now, in words: "model call", "tool bash", "retry in 4 s", "awaiting approval". */
export function activityText(activity: RunSummary["activity"] | undefined, nowMs: number): string {
  if (!activity) return "";
  switch (activity.kind) {
    case "queued":
      return "queued";
    case "model":
      return "model call";
    case "tool":
      return activity.tool ? `tool ${activity.tool}` : "tool call";
    case "subagents": {
      const list = activity.subagents ?? [];
      const running = list.filter((s) => s.status !== "succeeded" && s.status !== "failed" && s.status !== "cancelled").length;
      return `waiting on ${list.length} subagent${list.length === 1 ? "" : "s"}${list.length ? ` (${running} running)` : ""}`;
    }
    case "retry": {
      const at = activity.retry_at ? Date.parse(activity.retry_at) : NaN;
      const left = Number.isFinite(at) ? at - nowMs : activity.retry_in_ms ?? 0;
      return left > 0 ? `retry backoff: retry in ${duration(left)}` : "retrying now";
    }
    case "awaiting_input":
      return "awaiting approval";
    case "finished":
      return "finished";
    default:
      return String((activity as { kind: string }).kind);
  }
}
