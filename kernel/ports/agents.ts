import type { BaseMessage } from "@langchain/core/messages";
import type { TokenUsage } from "../loop/normalize.js";
import type { StatusV2Payload } from "../loop/status.js";
import type { KeelTool } from "../plugin/types.js";
import type { RunFence } from "./fence.js";

/**
 * Ports used by delegation (plugins `subagents` and `batch-leasing`). The `agents` port is
 * supplied by the host (createAgentRuntime option `ports`), since only the host knows how to
 * build a child's model and stack; `lease-keeper` is provided by the batch-leasing plugin, so a
 * delegating plugin never imports it. The evidence ports are in ./evidence.ts.
 */
export const AGENTS_PORT = "agents";
/**
 * The `token-allowance` port: the plugin of a child's stack that enforces a token budget
 * (the built-in token-budget plugin). The child runner reads the stack's budget through it
 * and gives a lease's allowance to its provider as a config layer `{ limit }`.
 */
export const TOKEN_ALLOWANCE_PORT = "token-allowance";

/** The token budget a stack's provider of `token-allowance` enforces, from its composed options. */
export interface TokenAllowancePort {
  /** Undefined when the budget is switched off. */
  budget(): { limit: number; returnReserve: number } | undefined;
}
export const LEASE_KEEPER_PORT = "lease-keeper";

/** One finished step of a child (a model call answered, a tool call done): its heartbeat. */
export interface ChildStep {
  kind: "model_call" | "tool_call";
  turn: number;
  status: string;
  /** The child's usage so far (every answered model call). */
  usage: TokenUsage;
}

export interface ChildAgentRequest {
  /**
   * The parent's thread id. It is the child's `ctx.threadId`, so the child works in the
   * parent's workspace; its checkpoints live apart, under `${threadId}/${agentPath}`.
   */
  threadId: string;
  runId: string;
  /** `lead/<taskToolCallId>`. */
  agentPath: string;
  taskId: string;
  subagentType: string;
  /** The child's system message (report contract, acceptance criteria, caller's next action). */
  systemPrompt: string;
  /** The child's user message. */
  input: string;
  /** Tools added to the subagent stack's own (a child always gets `return_result`). */
  tools: readonly KeelTool[];
  /** Never stripped by a stop; the only tools bound on the child's forced final call. */
  protectedTools: readonly string[];
  /** A successful call ends the child after that tools step. */
  terminalTools: readonly string[];
  maxTurns: number;
  /**
   * The caller journals the child's lifecycle `end` itself, with the status it judged, through
   * the result's `journalEnd`; until then the runner holds the child runtime's own `end` entry.
   */
  journalsEnd?: boolean;
  /** The lease's allowance: the child's token-budget `limit` (the last config layer). */
  tokenLimit?: number;
  /** Aborted when the parent is cancelled, the lease expires or the child times out. */
  signal: AbortSignal;
  /**
   * The parent run's lease fence (the caller's `ctx.fence`): the child's checkpoint writes
   * are fenced by the parent's run row, its tools see it as `ctx.fence` (with `leaseEpoch`).
   */
  fence?: RunFence;
  /** The parent run's user (the caller's `ctx.user`): the child's `ctx.user`. */
  user?: string;
  /** The epoch of the child's own delegation lease (lease@1), recorded on its journal entries and writes. */
  leaseEpoch?: number;
  onStep?(step: ChildStep): void;
}

export interface ChildAgentResult {
  outcome: StatusV2Payload;
  messages: BaseMessage[];
  /** The child's final channel values (its receipts, bashRuns, ...). */
  values: Record<string, unknown>;
  turns: number;
  usage: TokenUsage;
  /** With `journalsEnd`: write the child's held lifecycle `end` entry with `status` (once; later calls do nothing). */
  journalEnd?(status: string): void;
}

/** Runs delegated children: the host composes the subagent stack and builds the child's model. */
export interface AgentsPort {
  /** Subagent types this host can run. */
  types(): readonly string[];
  /** The subagent stack's token-budget options before any lease (undefined: no token-budget in it). */
  tokenBudget(subagentType: string): { limit: number; returnReserve: number } | undefined;
  /** The subagent stack's composed options of plugin `name`, or undefined when that plugin is not in it. */
  pluginConfig?(subagentType: string, name: string): Readonly<Record<string, unknown>> | undefined;
  run(request: ChildAgentRequest): Promise<ChildAgentResult>;
}

/** The live side of a lease@1: heartbeats, expiry, and the epoch a terminal write must carry. */
export interface LeaseHold {
  /** The child made progress: the lease stays alive for another TTL. */
  beat(): void;
  /**
   * Compare-and-swap on the epoch, then stop watching: true when the holder's epoch is still
   * current (its terminal write may go ahead), false when the lease expired meanwhile.
   */
  release(): boolean;
  readonly expired: boolean;
  /** The lease's current epoch (grows when the lease expires). */
  readonly epoch: number;
  /** ISO time at which the lease expires without another heartbeat. */
  readonly expiresAt: string;
}

export interface LeaseKeeperPort {
  /** Start watching a granted lease; `onExpire` runs once when no heartbeat came for the TTL. */
  hold(lease: { leaseId: string; runId: string; taskId: string; epoch: number }, onExpire: () => void, now: () => string): LeaseHold;
  /** TTL of a lease without a heartbeat, in milliseconds. */
  readonly ttlMs: number;
}

export { RECEIPTS_PORT, ACCEPTANCE_PORT, type ReceiptsPort, type AcceptancePort, type CitationVerdict, type AcceptanceVerdict } from "./evidence.js";
