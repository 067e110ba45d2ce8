/**
 * Span and attribute names: OpenTelemetry's GenAI semantic conventions (development status)
 * where they have a name, `keel.*` for what is Keel's own. docs/observability.md lists them.
 */
export const GEN_AI = {
  operation: "gen_ai.operation.name",
  provider: "gen_ai.provider.name",
  requestModel: "gen_ai.request.model",
  responseModel: "gen_ai.response.model",
  responseId: "gen_ai.response.id",
  finishReasons: "gen_ai.response.finish_reasons",
  inputTokens: "gen_ai.usage.input_tokens",
  outputTokens: "gen_ai.usage.output_tokens",
  agentName: "gen_ai.agent.name",
  conversationId: "gen_ai.conversation.id",
  toolName: "gen_ai.tool.name",
  toolCallId: "gen_ai.tool.call.id",
  toolType: "gen_ai.tool.type",
  toolDescription: "gen_ai.tool.description",
  errorType: "error.type",
} as const;

export const KEEL = {
  runId: "keel.run.id",
  threadId: "keel.thread.id",
  agentPath: "keel.agent.path",
  status: "keel.run.status",
  primaryStopReason: "keel.run.primary_stop_reason",
  stopReasons: "keel.run.stop_reasons",
  turns: "keel.run.turns",
  turn: "keel.turn",
  purpose: "keel.model_call.purpose",
  toolsBound: "keel.model_call.tools",
  toolStatus: "keel.tool.status",
} as const;

export const OPERATION = { agent: "invoke_agent", chat: "chat", tool: "execute_tool" } as const;

export const spanName = {
  agent: (name: string) => `${OPERATION.agent} ${name}`,
  chat: (model: string) => `${OPERATION.chat} ${model}`,
  tool: (name: string) => `${OPERATION.tool} ${name}`,
};

/** The instrumentation scope spans are created under. */
export const TRACER_NAME = "keel";
