import type { AIMessage, BaseMessage, ToolMessage } from "@langchain/core/messages";
import type { HookName } from "../../contracts/shared.js";
import type { ManifestV1 } from "../../contracts/manifest/v1.js";
import type { RunFence } from "../ports/fence.js";

export type { HookName };
export type Manifest = ManifestV1;

/** The channels a hook may see: only those it observes or mutates. */
export type ChannelState = Readonly<Record<string, unknown>>;
/** A partial update of channels, applied through each channel's reducer. */
export type ChannelUpdate = Record<string, unknown>;

/** The identity of the run a hook is executing in. */
export interface RunIdentity {
  readonly threadId: string;
  readonly runId: string;
  /** `lead`, or `lead/<taskToolCallId>` for a child. */
  readonly agent: string;
  /** Model-call number of this agent in this run (1-based); 0 before the first call. */
  readonly turn: number;
  /**
   * The run's lease fence, when the run is owned by a lease (the run service): call
   * `fence.assertHeld()` right before any write outside the checkpointer and record
   * `fence.epoch` with it (kernel/ports/fence.ts). Absent for a run without a lease.
   */
  readonly fence?: RunFence;
  /**
   * Who the run is for: the authenticated user of the run service (a run record's `user`),
   * given by the runtime; a delegated child carries its parent run's. Absent for a run
   * started without one (a local `runtime.run` without `user`).
   */
  readonly user?: string;
}

/**
 * A journal entry a plugin writes (`ctx.journal`, journal-entry@1 kind `approval`): a human
 * decision (or the request for one) about one tool call.
 */
export interface ApprovalJournalEntry {
  /** The tool the entry is about. */
  name: string;
  /** `requested`, or the decision: `approve`, `edit`, `reject`, `invalid`, `refused`. */
  status: string;
  toolCallId?: string;
  /** SHA-256 (hex) of the canonical JSON of the arguments the call runs with. */
  argsSha256?: string;
  /** Who decided (the run's user). */
  by?: string;
}

/** Data of a `guard` stream event (stream-event@1). */
export interface GuardEventData {
  action: "warn" | "strip" | "block" | "refuse" | "retry" | "stop";
  reason: string;
  detail?: string;
  /** `retry` only: the delay scheduled before the next attempt, in ms (also journaled). */
  retryInMs?: number;
}

export interface HookContext extends RunIdentity {
  readonly plugin: string;
  readonly hook: HookName;
  /** The plugin's validated options (defaults applied). */
  readonly config: Readonly<Record<string, unknown>>;
  readonly signal: AbortSignal;
  /** Emit a stream event of this run (`guard`, `custom`, ...). */
  emit(event: string, data: unknown): void;
  /** Emit a `guard` event and journal it. */
  guard(data: GuardEventData): void;
  /** Wrap hooks only: write channels; checked against `mutates`, applied when the node finishes. */
  update(partial: ChannelUpdate): void;
  /** Summarize messages through the kernel port (a model call that is not a turn). */
  summarize(messages: BaseMessage[]): Promise<string>;
  /** ISO-8601 time from the run's clock (fixed in scenarios). */
  now(): string;
  /** A port provided by a service plugin of the stack (e.g. `workspace`); throws if none provides it. */
  port<T = unknown>(name: string): T;
  /**
   * afterModel only: pause the run for input (LangGraph's `interrupt(value)`). The thread
   * goes `interrupted` with `value` in its task's `interrupts`; the resume run's
   * `command: { resume }` is what this call returns then. The model is not called again:
   * the kernel keeps the answer and re-runs the afterModel chain alone (kernel/loop/agent-node.ts).
   * `journal`: entries written once, when the run really pauses here. Anywhere else it throws
   * `KEEL_ERR_HOOK_INTERRUPT_OUTSIDE_AFTER_MODEL`.
   */
  interrupt<T = unknown>(value: unknown, options?: { journal?: readonly ApprovalJournalEntry[] }): T;
  /** Journal an approval entry of this run (journal-entry@1 kind `approval`, with this agent and turn). */
  journal(entry: ApprovalJournalEntry): void;
}

/** A tool as the kernel binds it: JSON Schema arguments and a plain function. */
export interface KeelTool {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  schema: Record<string, unknown>;
  invoke(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutput> | ToolOutput;
}

export type ToolOutput = string | { content: string; status?: "success" | "error"; artifact?: unknown };

export interface ToolContext extends RunIdentity {
  readonly toolCallId: string;
  /** Options of the plugin that supplied the tool. */
  readonly config: Readonly<Record<string, unknown>>;
  readonly signal: AbortSignal;
  now(): string;
  port<T = unknown>(name: string): T;
}

export interface ToolCall {
  id: string;
  name: string;
  args: Record<string, unknown>;
}

export interface ModelRequest {
  /** Messages as they will be sent, system message first. Wrap hooks may replace this array. */
  messages: BaseMessage[];
  /** Tools bound for this call (none on a forced final call). */
  tools: KeelTool[];
  /** The hook's view of the channels (read-only). */
  state: ChannelState;
  /** True for the forced final call after a stop request or the turn cap. */
  forced: boolean;
}

export interface ToolRequest {
  toolCall: ToolCall;
  /** Position of this call among the calls run in this tools step (0-based, tool-call order). */
  index: number;
  /** The tool that will run, or undefined when the model named an unknown tool. */
  tool: KeelTool | undefined;
  state: ChannelState;
}

type Awaitable<T> = T | Promise<T>;
export type StateHook = (state: ChannelState, ctx: HookContext) => Awaitable<ChannelUpdate | void | undefined>;
export type ModelHandler = (request: ModelRequest) => Promise<AIMessage>;
export type ToolHandler = (request: ToolRequest) => Promise<ToolMessage>;

export interface Hooks {
  beforeAgent?: StateHook;
  beforeModel?: StateHook;
  wrapModelCall?: (request: ModelRequest, next: ModelHandler, ctx: HookContext) => Promise<AIMessage>;
  afterModel?: StateHook;
  wrapToolCall?: (request: ToolRequest, next: ToolHandler, ctx: HookContext) => Promise<ToolMessage>;
  afterAgent?: StateHook;
}

/** What a plugin's report hook sees: one agent of a finished run. */
export interface ReportContext {
  /** `lead`, or a delegated child's agent path (`lead/<taskToolCallId>`). */
  agent: string;
  threadId: string;
  /** The agent's final channel values. */
  values: Readonly<Record<string, unknown>>;
  /** The plugin's composed options (of the agent's stack). */
  config: Readonly<Record<string, unknown>>;
}

/**
 * The run-report@1 sections a plugin contributes for one agent. The kernel merges the
 * contributions of a stack's plugins in composed order: arrays are concatenated,
 * `workspaceFiles` merged (a later plugin wins on the same path).
 */
export interface ReportContribution {
  /** This agent's entries of `receipts[agent]`. */
  receipts?: readonly Record<string, unknown>[];
  /** Entries of `delegations` (read for the lead only). */
  delegations?: readonly Record<string, unknown>[];
  /** Entries of `workspace.files`, by relative path (read for the lead only: the workspace is the thread's). */
  workspaceFiles?: Readonly<Record<string, { bytes: number; sha256: string }>>;
}

/** Builds a plugin's sections of the run report from a finished agent's values. Pure and synchronous. */
export type ReportHook = (ctx: ReportContext) => ReportContribution | undefined;

/** Builds a port implementation from the providing plugin's validated options. */
export type PortFactory = (config: Readonly<Record<string, unknown>>) => unknown;

export interface Plugin {
  readonly manifest: Manifest;
  readonly hooks: Hooks;
  readonly tools?: readonly KeelTool[];
  /** Port implementations, by port name; each name must be in `manifest.provides`. */
  readonly services?: Readonly<Record<string, PortFactory>>;
  /** Its sections of the run report (run-report@1), from the finished agent's values. */
  readonly report?: ReportHook;
}
