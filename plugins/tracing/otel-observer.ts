/**
 * A RunObserver that records OpenTelemetry spans after the GenAI semantic conventions:
 * `invoke_agent <name>` per run (a child's under its `execute_tool task` span), `chat <model>`
 * per model call attempt, `execute_tool <tool>` per tool call. Parents are passed
 * explicitly, so the tree is right without a context manager; a root run's parent is the
 * context active when it starts (a host's own request span, when it has one).
 */
import type { Attributes, Context, Span, Tracer } from "@opentelemetry/api";
import { KERNEL_VERSION } from "../../kernel/version.js";
import type { ModelCallEnd, ModelCallObservation, RunEnd, RunObservation, RunObserver, RunStart, ToolCallEnd, ToolCallObservation } from "../../kernel/observe/run-observer.js";
import type { OtelApi } from "./otel-packages.js";
import { GEN_AI, KEEL, OPERATION, spanName, TRACER_NAME } from "./span-names.js";

import type { TracerSource } from "./public-types.js";

export type { TracerSource } from "./public-types.js";

/** Outcome statuses a span reports as an error. */
const FAILED = new Set(["failed", "timed_out"]);

/**
 * The observer over `api` (the loaded `@opentelemetry/api`), tracing into `provider`, or into
 * the global TracerProvider when none is given (a no-op until the host registers one).
 */
export function otelObserver(api: OtelApi, provider?: TracerSource): RunObserver {
  const tracer = (provider ? provider.getTracer(TRACER_NAME, KERNEL_VERSION) : api.trace.getTracer(TRACER_NAME, KERNEL_VERSION)) as Tracer;
  /** The context of each of our own tool spans: a child run starts in it. */
  const toolContexts = new WeakMap<object, Context>();

  const failSpan = (span: Span, error: unknown) => {
    const type = errorType(error);
    span.setAttribute(GEN_AI.errorType, type);
    if (error instanceof Error) span.recordException(error);
    span.setStatus({ code: api.SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
    span.end();
  };
  const withinSpan = (span: Span) => <T>(fn: () => T): T => api.context.with(api.trace.setSpan(api.context.active(), span), fn);

  return {
    runStarted(start: RunStart): RunObservation {
      const parent = (start.parent && toolContexts.get(start.parent)) ?? api.context.active();
      const attributes: Attributes = {
        [GEN_AI.operation]: OPERATION.agent,
        [GEN_AI.agentName]: start.agentName,
        [GEN_AI.conversationId]: start.threadId,
        [GEN_AI.provider]: start.model.provider,
        [GEN_AI.requestModel]: start.model.name,
        [KEEL.runId]: start.runId,
        [KEEL.threadId]: start.threadId,
        [KEEL.agentPath]: start.agent,
      };
      const run = tracer.startSpan(spanName.agent(start.agentName), { kind: api.SpanKind.INTERNAL, attributes }, parent);
      const runContext = api.trace.setSpan(parent, run);
      return {
        end(end: RunEnd) {
          const { outcome } = end;
          run.setAttributes({
            [KEEL.status]: outcome.status,
            [KEEL.turns]: end.turns,
            [KEEL.stopReasons]: outcome.stopReasons.map((r) => r.reason),
            [GEN_AI.inputTokens]: end.usage.inputTokens,
            [GEN_AI.outputTokens]: end.usage.outputTokens,
            ...(outcome.primaryStopReason ? { [KEEL.primaryStopReason]: outcome.primaryStopReason } : {}),
          });
          if (FAILED.has(outcome.status)) {
            run.setAttribute(GEN_AI.errorType, outcome.error?.type ?? outcome.status);
            run.setStatus({ code: api.SpanStatusCode.ERROR, message: outcome.error?.message ?? outcome.text });
          }
          run.end();
        },
        fail: (error) => failSpan(run, error),
        within: withinSpan(run),
        modelCall(call): ModelCallObservation {
          const span = tracer.startSpan(
            spanName.chat(call.model.name),
            {
              kind: api.SpanKind.CLIENT,
              attributes: {
                [GEN_AI.operation]: OPERATION.chat,
                [GEN_AI.provider]: call.model.provider,
                [GEN_AI.requestModel]: call.model.name,
                [KEEL.turn]: call.turn,
                [KEEL.purpose]: call.purpose,
                [KEEL.toolsBound]: [...call.tools],
                [KEEL.agentPath]: start.agent,
              },
            },
            runContext,
          );
          return {
            end(result: ModelCallEnd) {
              span.setAttributes({
                [GEN_AI.inputTokens]: result.usage.inputTokens,
                [GEN_AI.outputTokens]: result.usage.outputTokens,
                ...(result.finishReason ? { [GEN_AI.finishReasons]: [result.finishReason] } : {}),
                ...(result.responseModel ? { [GEN_AI.responseModel]: result.responseModel } : {}),
                ...(result.responseId ? { [GEN_AI.responseId]: result.responseId } : {}),
              });
              span.end();
            },
            fail: (error) => failSpan(span, error),
            within: withinSpan(span),
          };
        },
        toolCall(call): ToolCallObservation {
          const span = tracer.startSpan(
            spanName.tool(call.name),
            {
              kind: api.SpanKind.INTERNAL,
              attributes: {
                [GEN_AI.operation]: OPERATION.tool,
                [GEN_AI.toolName]: call.name,
                [GEN_AI.toolCallId]: call.toolCallId,
                [GEN_AI.toolType]: "function",
                [KEEL.turn]: call.turn,
                [KEEL.agentPath]: start.agent,
                ...(call.description ? { [GEN_AI.toolDescription]: call.description } : {}),
              },
            },
            runContext,
          );
          const observation: ToolCallObservation = {
            end(result: ToolCallEnd) {
              span.setAttribute(KEEL.toolStatus, result.status);
              if (result.status === "error") {
                span.setAttribute(GEN_AI.errorType, result.errorType ?? "tool_error");
                span.setStatus({ code: api.SpanStatusCode.ERROR, message: result.errorType ?? "the tool answered with an error" });
              }
              span.end();
            },
            fail: (error) => failSpan(span, error),
            within: withinSpan(span),
          };
          toolContexts.set(observation, api.trace.setSpan(runContext, span));
          return observation;
        },
      };
    },
  };
}

/** `error.type`: a Keel code, else the error's class name. */
function errorType(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string" && code !== "") return code;
  if (error instanceof Error) return error.name;
  return "_OTHER";
}
