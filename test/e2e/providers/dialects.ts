import type { ReceivedRequest, Reply, Script } from "./scripted-http.js";

/** Provider-neutral description of one model answer. */
export interface ToolCallSpec {
  id: string;
  name: string;
  args: Record<string, unknown>;
}
export type Finish = "stop" | "tool" | "safety" | "length";
export interface AnswerSpec {
  text?: string;
  toolCalls?: ToolCallSpec[];
  /** Default: `tool` with tool calls, else `stop`. */
  finish?: Finish;
}

/** How one provider's wire format says things; the e2e suite is written once against this. */
export interface ProviderDialect {
  name: "openai" | "anthropic";
  /** POST paths the fake serves. */
  paths: string[];
  /** `keel serve` environment pointing the real client at the fake (`origin` = http://127.0.0.1:PORT). */
  env(origin: string): Record<string, string>;
  /** The provider's raw finish value for each kind (what finish-reason reads). */
  raw: Record<Finish, string>;
  /** Answer as the client asked: a JSON body, or (stream: true) SSE with text and tool arguments in pieces. */
  answer(spec: AnswerSpec): Script;
  /** An HTTP error with the provider's error body. */
  error(status: number, message: string, options?: { headers?: Record<string, string>; code?: string }): Script;
  /** An SSE stream that sends the first part of `text`, then the connection drops (or, `stall`, goes silent). */
  cut(text: string, how: "drop" | "stall"): Script;
  /** The tool results (content strings) a request sends back. */
  toolResults(request: ReceivedRequest): string[];
  /** Names of the tools bound on a request. */
  toolNames(request: ReceivedRequest): string[];
}

const finishOf = (spec: AnswerSpec): Finish => spec.finish ?? (spec.toolCalls?.length ? "tool" : "stop");
/** `s` in two pieces (one if short). */
const halves = (s: string): string[] => (s.length < 2 ? [s] : [s.slice(0, Math.ceil(s.length / 2)), s.slice(Math.ceil(s.length / 2))]);
/** A tool call's JSON arguments in three pieces, as providers stream them. */
const thirds = (s: string): string[] => {
  const n = Math.ceil(s.length / 3);
  return [s.slice(0, n), s.slice(n, 2 * n), s.slice(2 * n)].filter((p) => p !== "");
};
let counter = 0;

export const openAiDialect: ProviderDialect = {
  name: "openai",
  paths: ["/v1/chat/completions"],
  env: (origin) => ({ OPENAI_BASE_URL: `${origin}/v1`, OPENAI_API_KEY: "sk-fake" }),
  raw: { stop: "stop", tool: "tool_calls", safety: "content_filter", length: "length" },
  answer: (spec) => (request) => {
    const finish = openAiDialect.raw[finishOf(spec)];
    const id = `chatcmpl-${++counter}`;
    const model = String(request.body.model);
    const usage = { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 };
    if (request.body.stream !== true) {
      const tool_calls = spec.toolCalls?.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: JSON.stringify(c.args) } }));
      const message = { role: "assistant", content: spec.text ?? null, ...(tool_calls ? { tool_calls } : {}) };
      return { kind: "json", body: { id, object: "chat.completion", created: 1, model, choices: [{ index: 0, message, finish_reason: finish, logprobs: null }], usage } };
    }
    const chunk = (delta: Record<string, unknown>, finish_reason: string | null = null) => ({
      data: { id, object: "chat.completion.chunk", created: 1, model, choices: [{ index: 0, delta, finish_reason, logprobs: null }] },
    });
    const frames: Array<{ data: unknown }> = [chunk({ role: "assistant", content: "" })];
    for (const piece of halves(spec.text ?? "")) if (piece) frames.push(chunk({ content: piece }));
    spec.toolCalls?.forEach((c, index) => {
      frames.push(chunk({ tool_calls: [{ index, id: c.id, type: "function", function: { name: c.name, arguments: "" } }] }));
      for (const piece of thirds(JSON.stringify(c.args))) frames.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    });
    frames.push(chunk({}, finish));
    frames.push({ data: { id, object: "chat.completion.chunk", created: 1, model, choices: [], usage } });
    frames.push({ data: "[DONE]" });
    return { kind: "sse", frames };
  },
  error: (status, message, options = {}) => () => ({
    kind: "json",
    status,
    headers: options.headers ?? {},
    body: { error: { message, type: status === 429 ? "requests" : "invalid_request_error", code: options.code ?? null } },
  }),
  cut: (text, how) => (request): Reply => {
    const model = String(request.body.model);
    const chunk = (delta: Record<string, unknown>) => ({ data: { id: "chatcmpl-cut", object: "chat.completion.chunk", created: 1, model, choices: [{ index: 0, delta, finish_reason: null }] } });
    return { kind: "sse", frames: [chunk({ role: "assistant", content: "" }), chunk({ content: text })], ...(how === "drop" ? { drop: true } : { stall: true }) };
  },
  toolResults: (request) => ((request.body.messages as Array<{ role: string; content: unknown }>) ?? []).filter((m) => m.role === "tool").map((m) => String(m.content)),
  toolNames: (request) => ((request.body.tools as Array<{ function: { name: string } }>) ?? []).map((t) => t.function.name),
};

export const anthropicDialect: ProviderDialect = {
  name: "anthropic",
  paths: ["/v1/messages"],
  env: (origin) => ({ ANTHROPIC_BASE_URL: origin, ANTHROPIC_API_KEY: "sk-ant-fake" }),
  raw: { stop: "end_turn", tool: "tool_use", safety: "refusal", length: "max_tokens" },
  answer: (spec) => (request) => {
    const stop_reason = anthropicDialect.raw[finishOf(spec)];
    const id = `msg_${++counter}`;
    const model = String(request.body.model);
    if (request.body.stream !== true) {
      const content = [
        ...(spec.text ? [{ type: "text", text: spec.text }] : []),
        ...(spec.toolCalls ?? []).map((c) => ({ type: "tool_use", id: c.id, name: c.name, input: c.args })),
      ];
      return { kind: "json", body: { id, type: "message", role: "assistant", model, content, stop_reason, stop_sequence: null, usage: { input_tokens: 11, output_tokens: 7 } } };
    }
    const frames: Array<{ event: string; data: unknown }> = [
      { event: "message_start", data: { type: "message_start", message: { id, type: "message", role: "assistant", model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 11, output_tokens: 1 } } } },
    ];
    let index = 0;
    if (spec.text) {
      frames.push({ event: "content_block_start", data: { type: "content_block_start", index, content_block: { type: "text", text: "" } } });
      for (const piece of halves(spec.text)) frames.push({ event: "content_block_delta", data: { type: "content_block_delta", index, delta: { type: "text_delta", text: piece } } });
      frames.push({ event: "content_block_stop", data: { type: "content_block_stop", index } });
      index++;
    }
    for (const c of spec.toolCalls ?? []) {
      frames.push({ event: "content_block_start", data: { type: "content_block_start", index, content_block: { type: "tool_use", id: c.id, name: c.name, input: {} } } });
      for (const piece of thirds(JSON.stringify(c.args))) frames.push({ event: "content_block_delta", data: { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: piece } } });
      frames.push({ event: "content_block_stop", data: { type: "content_block_stop", index } });
      index++;
    }
    frames.push({ event: "message_delta", data: { type: "message_delta", delta: { stop_reason, stop_sequence: null }, usage: { output_tokens: 7 } } });
    frames.push({ event: "message_stop", data: { type: "message_stop" } });
    return { kind: "sse", frames };
  },
  error: (status, message, options = {}) => () => {
    const type = status === 429 ? "rate_limit_error" : status === 529 ? "overloaded_error" : status >= 500 ? "api_error" : status === 401 ? "authentication_error" : "invalid_request_error";
    return { kind: "json", status, headers: options.headers ?? {}, body: { type: "error", error: { type: options.code ?? type, message } } };
  },
  cut: (text, how) => (request): Reply => ({
    kind: "sse",
    frames: [
      { event: "message_start", data: { type: "message_start", message: { id: "msg_cut", type: "message", role: "assistant", model: String(request.body.model), content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 11, output_tokens: 1 } } } },
      { event: "content_block_start", data: { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } } },
      { event: "content_block_delta", data: { type: "content_block_delta", index: 0, delta: { type: "text_delta", text } } },
    ],
    ...(how === "drop" ? { drop: true } : { stall: true }),
  }),
  toolResults: (request) =>
    ((request.body.messages as Array<{ role: string; content: unknown }>) ?? [])
      .flatMap((m) => (Array.isArray(m.content) ? (m.content as Array<{ type: string; content?: unknown }>) : []))
      .filter((block) => block.type === "tool_result")
      .map((block) => (typeof block.content === "string" ? block.content : JSON.stringify(block.content))),
  toolNames: (request) => ((request.body.tools as Array<{ name: string }>) ?? []).map((t) => t.name),
};
