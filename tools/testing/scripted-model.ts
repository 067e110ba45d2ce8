import { BaseChatModel, type BaseChatModelCallOptions, type BindToolsInput } from "@langchain/core/language_models/chat_models";
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import { messageText } from "../../kernel/loop/message-meta.js";

export interface ScriptedToolCall {
  name: string;
  id?: string;
  args: Record<string, unknown>;
}

export interface ScriptedTurn {
  content?: string;
  toolCalls?: ScriptedToolCall[];
  usage?: { input_tokens: number; output_tokens: number };
  finishReason?: string;
  provider?: "openai" | "anthropic" | "gemini";
}

export interface ScriptedAgent {
  turns: ScriptedTurn[];
  then?: "stop" | "repeat-last" | "repeat-all";
}

export interface ScriptedFault {
  /** A subagent type (every instance) or an agent path (one instance). */
  agent: string;
  /** 1-based turn of that agent instance. */
  turn: number;
  /** Consecutive failing attempts at that turn (default 1). */
  times?: number | "always";
  error?: { status?: number; message: string; code?: string; type?: string };
  /** `hang`: the call never answers until the run is cancelled. */
  kind?: "error" | "hang";
}

export interface ScriptedChatModelOptions {
  script: ScriptedAgent;
  /** `lead`, or `lead/<taskToolCallId>` for a child. */
  agentPath?: string;
  /** `lead` or the subagent type. */
  agentType?: string;
  faults?: readonly ScriptedFault[];
}

/** The error a scripted fault throws: shaped like provider SDK errors (`status`, `code`). */
export class ScriptedProviderError extends Error {
  readonly status?: number;
  readonly code?: string;
  readonly type?: string;
  constructor(fault: NonNullable<ScriptedFault["error"]>) {
    super(fault.message);
    this.name = "ScriptedProviderError";
    if (fault.status !== undefined) this.status = fault.status;
    if (fault.code !== undefined) this.code = fault.code;
    if (fault.type !== undefined) this.type = fault.type;
  }
}

const FINISH_FIELD = { openai: "finish_reason", anthropic: "stop_reason", gemini: "finishReason" } as const;
const DEFAULT_FINISH = {
  openai: { tools: "tool_calls", text: "stop" },
  anthropic: { tools: "tool_use", text: "end_turn" },
  gemini: { tools: "STOP", text: "STOP" },
} as const;

/**
 * A chat model that answers from a scenario script (scenario@1, schemas/scenario.v1.schema.json): one
 * cursor per instance, every successful call consumes one turn, a failed attempt (a
 * fault) does not, so retries of one turn are exercised without shifting the script.
 */
export class ScriptedChatModel extends BaseChatModel {
  private readonly script: ScriptedAgent;
  readonly agentPath: string;
  readonly agentType: string;
  private readonly faults: readonly ScriptedFault[];
  private cursor = 0;
  private attempts = 0;

  constructor(options: ScriptedChatModelOptions) {
    super({});
    this.script = options.script;
    this.agentPath = options.agentPath ?? "lead";
    this.agentType = options.agentType ?? "lead";
    this.faults = options.faults ?? [];
  }

  _llmType(): string {
    return "keel-scripted";
  }

  /** Turns answered so far. */
  get turnsAnswered(): number {
    return this.cursor;
  }

  /** Continue the script after `turns` answered turns (a resumed run's fresh model; only before its first answer). */
  protected continueAfter(turns: number): void {
    if (this.cursor === 0 && turns > 0) this.cursor = turns;
  }

  override bindTools(tools: BindToolsInput[], kwargs?: Partial<BaseChatModelCallOptions>) {
    return this.withConfig({ ...(kwargs ?? {}), tools } as Partial<BaseChatModelCallOptions>);
  }

  async _generate(messages: BaseMessage[], options: this["ParsedCallOptions"]): Promise<ChatResult> {
    const turnNumber = this.cursor + 1;
    const fault = this.faults.find((f) => (f.agent === this.agentPath || f.agent === this.agentType) && f.turn === turnNumber);
    if (fault) {
      this.attempts++;
      const times = fault.times ?? 1;
      if (times === "always" || this.attempts <= times) {
        if (fault.kind === "hang") await hangUntilAborted(options.signal);
        throw new ScriptedProviderError(fault.error ?? { message: "scripted provider error" });
      }
    }
    this.attempts = 0;
    this.cursor++;
    const turn = this.turnAt(turnNumber - 1);
    const provider = turn.provider ?? "openai";
    const toolCalls = (turn.toolCalls ?? []).map((c, i) => ({
      id: c.id ?? `call_${this.agentPath.replace(/\//g, "_")}_${turnNumber}_${i + 1}`,
      name: c.name,
      args: c.args,
      type: "tool_call" as const,
    }));
    const content = turn.content ?? "";
    const usage = turn.usage ?? estimateUsage(messages, content, turn.toolCalls);
    const finish = turn.finishReason ?? DEFAULT_FINISH[provider][toolCalls.length > 0 ? "tools" : "text"];
    const message = new AIMessage({
      content,
      tool_calls: toolCalls,
      response_metadata: { [FINISH_FIELD[provider]]: finish, model_provider: provider },
      usage_metadata: { input_tokens: usage.input_tokens, output_tokens: usage.output_tokens, total_tokens: usage.input_tokens + usage.output_tokens },
    });
    return { generations: [{ text: content, message }] };
  }

  private turnAt(index: number): ScriptedTurn {
    const { turns } = this.script;
    if (index < turns.length) return turns[index]!;
    const then = this.script.then ?? "stop";
    if (turns.length === 0 || then === "stop") return { content: "" };
    if (then === "repeat-last") return turns[turns.length - 1]!;
    return turns[index % turns.length]!;
  }
}

/**
 * Usage: input = ⌈text length of the request's messages / 4⌉ (tool schemas
 * excluded); output = ⌈(content length + JSON length of the turn's toolCalls) / 4⌉.
 */
export function estimateUsage(messages: readonly BaseMessage[], content: string, toolCalls: ScriptedToolCall[] | undefined) {
  const inputChars = messages.reduce((sum, m) => sum + messageText(m).length, 0);
  const outputChars = content.length + (toolCalls ? JSON.stringify(toolCalls).length : 0);
  return { input_tokens: Math.ceil(inputChars / 4), output_tokens: Math.ceil(outputChars / 4) };
}

function hangUntilAborted(signal: AbortSignal | undefined): Promise<never> {
  return new Promise((_resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason ?? new Error("aborted"));
    signal?.addEventListener("abort", () => reject(signal.reason ?? new Error("aborted")), { once: true });
  });
}
