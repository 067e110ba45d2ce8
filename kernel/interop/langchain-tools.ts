import { ToolMessage } from "@langchain/core/messages";
import type { RunnableToolLike } from "@langchain/core/runnables";
import { isRunnableToolLike, isStructuredTool, type StructuredToolInterface } from "@langchain/core/tools";
import { convertToOpenAITool } from "@langchain/core/utils/function_calling";
import { KeelError } from "../errors.js";
import type { KeelTool, ToolContext, ToolOutput } from "../plugin/types.js";

/**
 * A LangChain tool as it comes: `tool()` from `@langchain/core/tools`, a `StructuredTool` /
 * `DynamicStructuredTool` subclass, the tools `@langchain/mcp-adapters` loads, or a
 * runnable's `asTool()`.
 */
export interface LangChainTool {
  /**
   * What every LangChain tool has (it is a serializable runnable) and a Keel tool has not.
   * Typed by this shape alone, and not by `invoke`, so that a Keel tool written inline
   * (`{ name, description, schema, invoke: (args) => … }`) keeps its contextual types.
   */
  readonly lc_namespace: readonly string[];
  readonly name: string;
}

/** What Keel takes wherever it takes tools: its own `KeelTool`, or a LangChain tool as is. */
export type ToolLike = KeelTool | LangChainTool;

/** The LangChain tool a converted KeelTool came from (a LangChain middleware sees the original). */
const sources = new WeakMap<KeelTool, LangChainTool>();
/** One KeelTool per LangChain tool, so identity checks (and the model's bound-tools cache) keep working. */
const converted = new WeakMap<object, KeelTool>();

export function isLangChainTool(value: unknown): value is LangChainTool {
  if (typeof value !== "object" || value === null) return false;
  return isStructuredTool(value as StructuredToolInterface) || isRunnableToolLike(value);
}

/** The LangChain tool behind a KeelTool made by `toKeelTool`, if any. */
export function langChainSourceOf(tool: KeelTool): LangChainTool | undefined {
  return sources.get(tool);
}

/**
 * A KeelTool from either kind: a KeelTool is returned as is; a LangChain tool is wrapped. Its
 * JSON Schema is what LangChain itself gives providers (`convertToOpenAITool`); it is invoked
 * as LangChain's ToolNode invokes it (with the tool call, so it answers with a ToolMessage),
 * with the run's abort signal, `configurable.thread_id` and LangChain's ToolRuntime fields. What it throws (bad arguments
 * included) becomes the kernel's `KEEL_ERR_TOOL_FAILED` tool result, like a KeelTool's throw.
 */
export function toKeelTool(tool: ToolLike): KeelTool {
  if (!isLangChainTool(tool)) {
    if (typeof tool !== "object" || tool === null || typeof (tool as KeelTool).name !== "string" || typeof (tool as KeelTool).invoke !== "function") {
      throw new KeelError("KEEL_ERR_TOOL_INVALID", `a tool must be a Keel tool ({ name, description, schema, invoke }) or a LangChain tool; got ${describe(tool)}`);
    }
    return tool;
  }
  const existing = converted.get(tool);
  if (existing) return existing;
  const definition = convertToOpenAITool(tool as never) as { function: { name: string; description?: string; parameters?: Record<string, unknown> } };
  const keelTool: KeelTool = Object.freeze({
    name: definition.function.name,
    description: definition.function.description ?? "",
    schema: definition.function.parameters ?? { type: "object", properties: {} },
    invoke: (args: Record<string, unknown>, ctx: ToolContext) => invokeLangChainTool(tool, args, ctx),
  });
  converted.set(tool, keelTool);
  sources.set(keelTool, tool);
  return keelTool;
}

async function invokeLangChainTool(tool: LangChainTool, args: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutput> {
  const call = { id: ctx.toolCallId, name: tool.name, args, type: "tool_call" as const };
  const config: Record<string, unknown> = {
    signal: ctx.signal,
    configurable: { thread_id: ctx.threadId, run_id: ctx.runId, agent: ctx.agent },
    metadata: { keel_agent: ctx.agent, keel_turn: ctx.turn },
  };
  // LangChain's ToolRuntime, as its ToolNode extends the config: Keel tools see no agent state,
  // their `context` is the options of the plugin that supplied them; there is no store nor writer.
  Object.assign(config, { config: { ...config }, toolCallId: ctx.toolCallId, state: {}, context: ctx.config, store: null, writer: null });
  const output: unknown = await (tool as unknown as StructuredToolInterface | RunnableToolLike).invoke(call as never, config as never);
  if (ToolMessage.isInstance(output)) {
    return {
      content: contentText(output.content),
      status: output.status === "error" ? "error" : "success",
      ...(output.artifact === undefined ? {} : { artifact: output.artifact }),
    };
  }
  if (isCommand(output)) {
    throw new KeelError("KEEL_ERR_LANGCHAIN_UNSUPPORTED", `LangChain tool \`${tool.name}\` returned a LangGraph Command; Keel's loop routes itself, so a tool answers with content (a string, content blocks or a ToolMessage)`);
  }
  return { content: contentText(output) };
}

/** A ToolMessage's content as the text Keel's tool results carry: text blocks joined, other blocks as JSON. */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((block) => (typeof block === "string" ? block : (block as { type?: string })?.type === "text" ? String((block as { text?: unknown }).text ?? "") : JSON.stringify(block)))
      .join("\n");
  }
  return content === undefined || content === null ? "" : JSON.stringify(content);
}

function isCommand(value: unknown): boolean {
  return typeof value === "object" && value !== null && (value as { lg_name?: unknown }).lg_name === "Command";
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (typeof value !== "object") return `a ${typeof value}`;
  return `an object (${(value as object).constructor?.name ?? "no class"}) without \`name\` and \`invoke\``;
}
