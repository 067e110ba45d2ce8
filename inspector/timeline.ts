import type { Checkpoint, JournalEntry } from "./types.js";
import type { SseEvent } from "./api.js";

export type TimelineSource = "journal" | "checkpoint" | "stream";

export interface TimelineItem {
  atMs: number;
  source: TimelineSource;
  /** The `end` event: the run's commit point. */
  commit?: boolean;
  label: string;
  detail: string;
  agent?: string;
}

/** A stream event's time: its id is `<ms>-<seq>` (the bridge's); events without one sort by arrival. */
export function streamEventMs(event: SseEvent, fallbackMs: number): number {
  const ms = event.id ? Number(event.id.split("-")[0]) : NaN;
  return Number.isFinite(ms) ? ms : fallbackMs;
}

export function journalLabel(entry: JournalEntry): string {
  switch (entry.kind) {
    case "model_call":
      return `model call · turn ${entry.turn}`;
    case "tool_call":
      return `tool ${entry.name ?? "?"} · turn ${entry.turn}`;
    case "lifecycle":
      return `${entry.name ?? "lifecycle"}`;
    default:
      return `${entry.kind}${entry.name ? ` ${entry.name}` : ""}`;
  }
}

export function journalDetail(entry: JournalEntry): string {
  const parts = [entry.status];
  if (entry.durationMs !== undefined) parts.push(`${entry.durationMs} ms`);
  if (entry.usage) parts.push(`${entry.usage.totalTokens} tokens (${entry.usage.inputTokens} in, ${entry.usage.outputTokens} out)`);
  if (typeof entry.receiptId === "string") parts.push(`receipt ${entry.receiptId}`);
  if (entry.error) parts.push(typeof entry.error === "string" ? entry.error : `${entry.error.code ?? ""} ${entry.error.message ?? ""}`.trim());
  return parts.join(" · ");
}

/** The channels whose value differs from the previous checkpoint's (the step's state diff). */
export function changedChannels(previous: Checkpoint | undefined, current: Checkpoint): string[] {
  const changed: string[] = [];
  for (const key of Object.keys(current.values ?? {})) {
    if (!previous || JSON.stringify(previous.values?.[key]) !== JSON.stringify(current.values[key])) changed.push(key);
  }
  return changed;
}

export function messageCount(checkpoint: Checkpoint | undefined): number {
  const messages = checkpoint?.values?.messages;
  return Array.isArray(messages) ? messages.length : 0;
}

export function checkpointDetail(previous: Checkpoint | undefined, current: Checkpoint): string {
  const added = messageCount(current) - messageCount(previous);
  const changed = changedChannels(previous, current);
  return [`next: ${current.next.length ? current.next.join(", ") : "(none: final)"}`, added > 0 ? `+${added} message${added === 1 ? "" : "s"}` : "", changed.length ? `changed: ${changed.join(", ")}` : "no change"].filter(Boolean).join(" · ");
}

export function streamDetail(event: SseEvent): string {
  const text = typeof event.data === "string" ? event.data : JSON.stringify(event.data);
  return text.length > 160 ? `${text.slice(0, 160)}…` : text;
}

/** One timeline of the three sources, oldest first; at equal times durable sources first. */
export function buildTimeline(journal: readonly JournalEntry[], checkpoints: readonly Checkpoint[], events: ReadonlyArray<{ event: SseEvent; receivedMs: number }>): TimelineItem[] {
  const items: TimelineItem[] = [];
  for (const entry of journal) items.push({ atMs: Date.parse(entry.at), source: "journal", label: journalLabel(entry), detail: journalDetail(entry), agent: entry.agent });
  checkpoints.forEach((checkpoint, index) => {
    items.push({
      atMs: checkpoint.created_at ? Date.parse(checkpoint.created_at) : 0,
      source: "checkpoint",
      label: `checkpoint step ${checkpoint.metadata?.step ?? "?"} (${checkpoint.metadata?.source ?? "?"})`,
      detail: `${checkpoint.checkpoint.checkpoint_id} · ${checkpointDetail(checkpoints[index - 1], checkpoint)}`,
    });
  });
  for (const { event, receivedMs } of events) {
    const commit = event.event === "end";
    items.push({ atMs: streamEventMs(event, receivedMs), source: "stream", commit, label: commit ? "end — commit point" : event.event, detail: commit ? "the run's outcome is final from here on" : streamDetail(event) });
  }
  const order: Record<TimelineSource, number> = { journal: 0, checkpoint: 1, stream: 2 };
  // `end` is the last event of a run by contract: nothing durable comes after the commit point.
  return items.sort((a, b) => Number(a.commit ?? false) - Number(b.commit ?? false) || a.atMs - b.atMs || order[a.source] - order[b.source]);
}
