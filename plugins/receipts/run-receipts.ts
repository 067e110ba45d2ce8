import type { ChannelState } from "../../kernel/plugin/types.js";
import type { Receipt } from "./stamp.js";

/**
 * `receiptRun`: where the current agent run's receipts begin in `receipts`. The channel
 * is per thread (checkpointed), receipt@1 is closed (no run id inside), and ids restart
 * at r1 per agent run, so the run boundary is kept beside the list instead of in it.
 */
export interface ReceiptRun {
  runId: string;
  agent: string;
  start: number;
}

export function allReceipts(state: ChannelState): readonly Receipt[] {
  const value = state.receipts;
  return Array.isArray(value) ? (value as Receipt[]) : [];
}

/** Index of the current run's first receipt (0 when beforeAgent has not marked the run). */
export function runStart(state: ChannelState): number {
  const run = state.receiptRun as ReceiptRun | undefined;
  const start = typeof run?.start === "number" ? run.start : 0;
  return Math.max(0, Math.min(start, allReceipts(state).length));
}

/** The receipts of the current agent run, oldest first. */
export function runReceipts(state: ChannelState): Receipt[] {
  return allReceipts(state).slice(runStart(state));
}
