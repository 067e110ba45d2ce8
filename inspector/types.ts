/** The server's JSON as the page reads it (only the fields it uses). */
import type { RunSummaryOf } from "../kernel/runs/run-summary.js";

export interface Usage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
}

export interface Outcome {
  status: "succeeded" | "partial" | "failed" | "timed_out" | "cancelled";
  stopReasons?: Array<string | { reason: string }>;
  primaryStopReason?: string;
  text?: string;
  usage?: Usage;
  error?: { code?: string; message?: string };
}

/** One run of the run-status feed (`GET /keel/feed`): the kernel's wire shape (types only). */
export type RunSummary = RunSummaryOf<Outcome>;

/** LangGraph's Run, plus Keel's `outcome`. */
export interface Run {
  run_id: string;
  thread_id: string;
  assistant_id: string;
  created_at: string;
  updated_at: string;
  status: string;
  metadata: Record<string, unknown>;
  kwargs: { input?: unknown; checkpoint_id?: string };
  outcome?: Outcome;
}

export interface Thread {
  thread_id: string;
  status: string;
  metadata: Record<string, unknown>;
  interrupts?: Record<string, Array<{ value: unknown; id?: string }>>;
}

export interface JournalEntry {
  seq: number;
  at: string;
  runId: string;
  agent: string;
  turn: number;
  kind: string;
  name?: string;
  status: string;
  durationMs?: number;
  usage?: Usage;
  receiptId?: string;
  error?: { code?: string; message?: string } | string;
  [key: string]: unknown;
}

export interface Checkpoint {
  values: Record<string, unknown>;
  next: string[];
  checkpoint: { checkpoint_id: string };
  metadata: { source?: string; step?: number; run_id?: string; [key: string]: unknown } | null;
  created_at: string | null;
  parent_checkpoint: { checkpoint_id: string } | null;
  tasks: Array<{ id: string; name: string; interrupts?: Array<{ value: unknown }> }>;
}

export interface ReportMessage {
  role: string;
  content: string;
  hidden?: boolean;
  toolCalls?: Array<{ id: string; name: string; args: Record<string, unknown> }>;
  toolCallId?: string;
}

export interface Receipt {
  id: string;
  toolCallId: string;
  tool: string;
  status: string;
  argsSha256: string;
  outputSha256: string;
  bytes: number;
  createdAt: string;
}

export interface AcceptanceLeaf {
  criterion: string;
  checked: boolean;
  holds: boolean;
  detail?: string;
}

export interface Delegation {
  id: string;
  description?: string;
  subagentType?: string;
  status: string;
  stopReasons?: Array<string | { reason: string }>;
  lease?: { leaseId: string; epoch: number; expiresAt?: string };
  usage?: Usage;
  receiptVerdict?: { citationResolved?: boolean; cited?: string[]; resolved?: string[]; failed?: string[]; unknown?: string[]; noCitationClaims?: boolean } | null;
  acceptanceVerdict?: { leaves: AcceptanceLeaf[]; unchecked?: string[]; allHold: boolean } | null;
  parentId?: string;
  agentPath?: string;
}

export interface RunReport {
  runId: string;
  threadId: string;
  outcome: Outcome;
  turns: Record<string, number>;
  usage: Usage & { byAgent?: Record<string, Usage> };
  delegations: Delegation[];
  receipts: Record<string, Receipt[]>;
  modelRequests: Array<{ agent: string; turn: number; messages: ReportMessage[]; tools?: unknown[] }>;
  messages: ReportMessage[];
  workspace?: { files: Record<string, { bytes: number; sha256: string }> };
}

export interface Info {
  name: string;
  version: string;
  stacks: string[];
  model?: string | null;
}

export function stopReasonName(reason: string | { reason: string }): string {
  return typeof reason === "string" ? reason : reason.reason;
}
