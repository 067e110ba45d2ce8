import type { ChannelState } from "../../kernel/plugin/types.js";
import type { Receipt } from "./stamp.js";

/**
 * `receiptRun`: where the current agent run's receipts begin. The channels are per thread
 * (checkpointed), receipt@1 is closed (no run id inside), and ids restart at r1 per agent
 * run, so the run boundary is kept beside the list: `start` is the thread's receipt count
 * (`receiptCounts.total`) when the run began.
 */
export interface ReceiptRun {
  runId: string;
  agent: string;
  start: number;
  /** `receiptCounts.delegations` when the run began: the run has delegated once the count is higher. */
  delegationsAtStart?: number;
}

/** `receiptCounts`: receipts stamped on the thread, by status, and how many were `task` calls (a `sum` channel). */
export interface ReceiptCounts {
  total: number;
  success?: number;
  error?: number;
  delegations?: number;
}

function counts(state: ChannelState): Partial<ReceiptCounts> {
  const value = state.receiptCounts;
  return typeof value === "object" && value !== null ? (value as Partial<ReceiptCounts>) : {};
}

/** What a citation check needs of a receipt: its id, tool and status. */
export type IndexedReceipt = Pick<Receipt, "id" | "tool" | "status">;

/** The newest receipts kept in state (`receipts`, bounded by `keepInState`), oldest first. */
export function allReceipts(state: ChannelState): readonly Receipt[] {
  const value = state.receipts;
  return Array.isArray(value) ? (value as Receipt[]) : [];
}

/** Receipts stamped on the thread; a state written before `receiptCounts` existed counts its list. */
export function receiptTotal(state: ChannelState): number {
  const total = counts(state).total;
  return typeof total === "number" ? total : allReceipts(state).length;
}

/** Whether the current run has a `task` receipt, from the counts (no scan of the run's receipts). */
export function runHasDelegated(state: ChannelState, delegationTool: string): boolean {
  const run = state.receiptRun as ReceiptRun | undefined;
  const now = counts(state).delegations ?? 0;
  if (now > (run?.delegationsAtStart ?? 0)) return true;
  return runReceipts(state).some((r) => r.tool === delegationTool);
}

/** The thread's receipt count when the current run began (0 when beforeAgent has not marked the run). */
export function runStart(state: ChannelState): number {
  const run = state.receiptRun as ReceiptRun | undefined;
  const start = typeof run?.start === "number" ? run.start : 0;
  return Math.max(0, Math.min(start, receiptTotal(state)));
}

/** The current run's receipts still in state (the newest `keepInState` of the thread), oldest first. */
export function runReceipts(state: ChannelState): Receipt[] {
  const kept = allReceipts(state);
  const firstKept = receiptTotal(state) - kept.length;
  return kept.slice(Math.max(0, runStart(state) - firstKept));
}

/**
 * One `receiptIndex` entry: `"<id> <tool>"` for a successful call, `"<id> <tool> error"`
 * otherwise — a few bytes per receipt, whatever the call's payload.
 */
export function indexEntry(receipt: IndexedReceipt): string {
  return receipt.status === "success" ? `${receipt.id} ${receipt.tool}` : `${receipt.id} ${receipt.tool} ${receipt.status}`;
}

function parseEntry(entry: string): IndexedReceipt | null {
  const [id, tool, status] = entry.split(" ");
  if (!id || !tool) return null;
  return { id, tool, status: status === undefined ? "success" : (status as Receipt["status"]) };
}

/**
 * Every receipt of the current run, oldest first: the kept receipt where state still holds
 * it, else its `receiptIndex` entry (id, tool, status). Receipts that fell out of
 * `receipts` stay citable through the index.
 */
export function runReceiptIndex(state: ChannelState): IndexedReceipt[] {
  const index = Array.isArray(state.receiptIndex) ? (state.receiptIndex as string[]) : [];
  const kept = new Map(runReceipts(state).map((r) => [r.id, r]));
  // The index holds one entry per receipt since it existed: its run part starts at the run's offset from its end.
  const runLength = receiptTotal(state) - runStart(state);
  const entries = index.slice(Math.max(0, index.length - runLength)).map(parseEntry).filter((e): e is IndexedReceipt => e !== null);
  const out: IndexedReceipt[] = entries.map((e) => kept.get(e.id) ?? e);
  // A run begun before the index existed: its kept receipts are the record.
  for (const receipt of kept.values()) if (!entries.some((e) => e.id === receipt.id)) out.push(receipt);
  return out;
}
