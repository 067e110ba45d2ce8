import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { isGraphPause } from "./pause.js";
import { AIMessage, AIMessageChunk, type BaseMessage } from "@langchain/core/messages";
import { ChatPromptValue } from "@langchain/core/prompt_values";
import type { KeelTool, ModelHandler } from "../plugin/types.js";
import { ensureMessageId, setKeelMeta } from "./message-meta.js";
import { TokenStreamer } from "./token-stream.js";
import { PartialMessages } from "./messages-mode.js";
import { agentEventName } from "./stream-graph.js";
import { normalizeFinish, normalizeUsage } from "./normalize.js";
import type { RunDeps } from "./loop-state.js";
import { describeModel, describeResponse } from "../observe/observed.js";

/** Errors that came from the provider (not from a plugin): the run fails with the provider's message. */
export class ModelCallError extends Error {
  readonly status?: number;
  readonly retryable: boolean;
  constructor(cause: unknown) {
    const status = (cause as { status?: number })?.status;
    super((cause as Error)?.message ?? String(cause), { cause });
    this.name = "ModelCallError";
    if (typeof status === "number") this.status = status;
    this.retryable = status === undefined ? !/auth|quota|invalid/i.test(this.message) : status === 429 || status >= 500 || status === 408;
  }
}

export function toToolDefinition(tool: KeelTool): Record<string, unknown> {
  return { type: "function", function: { name: tool.name, description: tool.description, parameters: tool.schema } };
}

const boundCache = new WeakMap<BaseChatModel, Map<string, ReturnType<NonNullable<BaseChatModel["bindTools"]>>>>();

function bindTools(model: BaseChatModel, tools: readonly KeelTool[]) {
  if (tools.length === 0) return model;
  if (typeof model.bindTools !== "function") throw new Error(`model ${model.getName()} cannot bind tools`);
  let perModel = boundCache.get(model);
  if (!perModel) boundCache.set(model, (perModel = new Map()));
  const key = tools.map((t) => t.name).join("\u0000");
  let bound = perModel.get(key);
  if (!bound) perModel.set(key, (bound = model.bindTools(tools.map(toToolDefinition) as never)));
  return bound;
}

/** Provider output as one normalized AIMessage: id, finish reason and usage in one shape. */
export function normalizeResponse(output: BaseMessage, id: string): AIMessage {
  const source = output as AIMessage;
  const message = AIMessageChunk.isInstance(output) || !AIMessage.isInstance(output)
    ? new AIMessage({
        content: source.content,
        tool_calls: source.tool_calls ?? [],
        invalid_tool_calls: source.invalid_tool_calls ?? [],
        additional_kwargs: source.additional_kwargs ?? {},
        response_metadata: source.response_metadata ?? {},
        ...(source.usage_metadata ? { usage_metadata: source.usage_metadata } : {}),
      })
    : source;
  ensureMessageId(message, id);
  const usage = normalizeUsage(message);
  message.usage_metadata = { input_tokens: usage.inputTokens, output_tokens: usage.outputTokens, total_tokens: usage.totalTokens };
  setKeelMeta(message, { finish: normalizeFinish(message) });
  return message;
}

/** Call the model streaming, emitting `messages` events; the concatenated chunks are the answer. */
async function streamModel(model: ReturnType<typeof bindTools>, messages: BaseMessage[], deps: RunDeps, turn: number, id: string, onToken: () => void): Promise<BaseMessage> {
  const metadata = { langgraph_node: "agent", agent: deps.agent, turn };
  // messages-tuple: a child's tokens under its namespace with subgraphs, else left out (as LangGraph does a subgraph's).
  const tupleEvent = agentEventName("messages", deps.agent, deps.scope.stream);
  const streamer = tupleEvent === undefined ? undefined : new TokenStreamer((data) => void deps.scope.emit(tupleEvent, data), metadata, id);
  // LangGraph's `messages` mode (messages/metadata, messages/partial), when the client asked for it.
  const partial = deps.scope.stream.modes.includes("messages") ? new PartialMessages((event, data) => void deps.scope.emit(event, data), id, metadata) : undefined;
  let whole: AIMessageChunk | undefined;
  for await (const chunk of await model.stream(promptOf(messages), { signal: deps.signal })) {
    const piece = chunk as AIMessageChunk;
    whole = whole ? whole.concat(piece) : piece;
    streamer?.push(piece);
    partial?.push(piece);
    onToken();
  }
  streamer?.flush();
  if (!whole) throw new Error("the model stream ended without a message");
  return whole;
}

/**
 * The request's messages as the model's input. They are messages already, so they are handed
 * over as a `ChatPromptValue`: LangChain then does not re-check the whole history message by
 * message on the way in (what an array costs it, on every turn, in proportion to the history).
 */
function promptOf(messages: BaseMessage[]): ChatPromptValue {
  return new ChatPromptValue(messages);
}

/** The innermost model handler: records the request as sent, calls the model, journals the attempt. */
export function modelInvoker(deps: RunDeps, turn: number): ModelHandler {
  // An attempt retried (error-fallback) after tokens of an earlier attempt went out streams
  // under a new message id (`<run>:<agent>:<turn>:attempt-<n>`): the earlier id's chunks were
  // discarded (that id never reaches the state, `messages/complete` or `values`).
  let attempt = 0;
  let streamedId: string | undefined;
  return async (request) => {
    attempt += 1;
    const tools = request.tools.map((t) => t.name);
    // A frozen list (run-time enforcement freezes every request) is recorded as it is: no copy of the history per turn.
    deps.scope.recordModelRequest({ agent: deps.agent, turn, messages: Object.isFrozen(request.messages) ? request.messages : [...request.messages], tools });
    const observed = deps.observation.modelCall({ turn, tools, purpose: "turn", model: describeModel(deps.model) });
    const started = performance.now();
    try {
      const base = `${deps.scope.runId}:${deps.agent}:${turn}`;
      const id = streamedId === undefined ? base : `${base}:attempt-${attempt}`;
      const model = bindTools(deps.model, request.tools);
      const call = () => (deps.streamTokens ? streamModel(model, request.messages, deps, turn, id, () => (streamedId = id)) : model.invoke(promptOf(request.messages), { signal: deps.signal }));
      const output = observed.within ? await observed.within(call) : await call();
      const message = normalizeResponse(output as BaseMessage, id);
      observed.end({ usage: normalizeUsage(message), ...describeResponse(message) });
      deps.scope.journal({
        agent: deps.agent,
        turn,
        kind: "model_call",
        status: "ok",
        usage: normalizeUsage(message),
        durationMs: Math.round(performance.now() - started),
      });
      return message;
    } catch (error) {
      observed.fail(error);
      deps.scope.journal({ agent: deps.agent, turn, kind: "model_call", status: "error", durationMs: Math.round(performance.now() - started) });
      if (deps.signal.aborted || isGraphPause(error)) throw error;
      throw new ModelCallError(error);
    }
  };
}
