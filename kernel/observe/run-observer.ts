/**
 * What the agent loop reports while it runs, for tracing and metrics: a run (or a child run)
 * starts and ends, a model call attempt starts and ends, a tool call starts and ends. The
 * kernel calls an observer and knows nothing of what it does with it (the tracing plugin
 * turns it into OpenTelemetry spans, the metrics plugin into Prometheus series); the kernel
 * itself imports neither. An observer must not throw: the loop guards every call anyway
 * (observed.ts), so a broken observer never breaks a run.
 */
import type { TokenUsage } from "../loop/normalize.js";
import type { StatusV2Payload } from "../loop/status.js";

/** The chat model a run calls, as far as the kernel can tell without importing a provider. */
export interface ObservedModel {
  /** The provider as LangChain names it (`_llmType()`: `openai`, `anthropic`, `keel-scripted`, …). */
  provider: string;
  /** The requested model (`model` / `modelName` of the client), else the provider name. */
  name: string;
}

export interface RunStart {
  runId: string;
  threadId: string;
  /** Agent path: `lead`, `lead/<taskToolCallId>` for a child. */
  agent: string;
  /** What the agent is called (`RunOptions.agentName`): the stack's lead, or a child's subagent type. */
  agentName: string;
  model: ObservedModel;
  /** The tool call this run runs inside (a subagent inside its `task` call), when there is one. */
  parent?: ToolCallObservation;
}

export interface RunEnd {
  outcome: StatusV2Payload;
  turns: number;
  usage: TokenUsage;
}

export interface ModelCallStart {
  turn: number;
  /** Tool names bound on this call. */
  tools: readonly string[];
  /** `turn` for a turn's call, `summarize` for a summary call (not a turn). */
  purpose: "turn" | "summarize";
  model: ObservedModel;
}

export interface ModelCallEnd {
  usage: TokenUsage;
  /** The provider's own finish reason (`stop`, `tool_calls`, `end_turn`, …), when it gave one. */
  finishReason?: string;
  /** The model that answered, when the provider said (`response_metadata.model_name` / `model`). */
  responseModel?: string;
  /** The provider's response id, when it gave one. */
  responseId?: string;
}

export interface ToolCallStart {
  turn: number;
  toolCallId: string;
  name: string;
  /** The tool's description, when the tool is known. */
  description?: string;
}

export interface ToolCallEnd {
  /** The ToolMessage status: `error` for an unknown tool, a tool that threw or answered with an error. */
  status: "success" | "error";
  /** `KEEL_ERR_TOOL_UNKNOWN` / `KEEL_ERR_TOOL_FAILED` when the kernel turned the call into an error result. */
  errorType?: string;
}

/** A started step: `end` once (success or failure); `within` runs code in the step's context (e.g. an OpenTelemetry context). */
export interface StepObservation<End> {
  end(result: End): void;
  fail(error: unknown): void;
  within?<T>(fn: () => T): T;
}

export type ModelCallObservation = StepObservation<ModelCallEnd>;
export type ToolCallObservation = StepObservation<ToolCallEnd>;

export interface RunObservation extends StepObservation<RunEnd> {
  modelCall(start: ModelCallStart): ModelCallObservation;
  toolCall(start: ToolCallStart): ToolCallObservation;
}

/**
 * Given to `createAgentRuntime({ observer })`. A child run started inside a tool call of an
 * observed run (the subagents' `task` tool) is observed by the same observer, with that
 * tool call as its `parent`, without the child runtime being given one.
 */
export interface RunObserver {
  runStarted(start: RunStart): RunObservation;
}
