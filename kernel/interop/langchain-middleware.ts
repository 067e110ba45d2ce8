import { AIMessage, BaseMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import type { HookDeclaration, Reference } from "../../contracts/manifest/v1.js";
import { KeelError } from "../errors.js";
import { canonicalJson } from "../hashing.js";
import { ensureMessageId, messageText } from "../loop/message-meta.js";
import { definePlugin } from "../plugin/define-plugin.js";
import type { ChannelState, ChannelUpdate, HookContext, HookName, Hooks, KeelTool, Manifest, ModelHandler, ModelRequest, Plugin, ToolHandler, ToolRequest } from "../plugin/types.js";
import { channelsOf, configSchemaOf, contextOf, stateFieldsOf, type StateField } from "./langchain-state.js";
import { langChainSourceOf, toKeelTool, type ToolLike } from "./langchain-tools.js";

/* eslint-disable @typescript-eslint/no-explicit-any -- LangChain's hook types are generic over its own state; Keel takes any of them. */
type LangChainHookFunction = (state: any, runtime: any) => unknown;
/** A LangChain state hook: a function, or `{ hook, canJumpTo }`. */
export type LangChainStateHook = LangChainHookFunction | { hook: LangChainHookFunction; canJumpTo?: readonly string[] };

/**
 * A LangChain v1 middleware (what `createMiddleware` and LangChain's middleware factories
 * return), typed by its shape so that Keel needs no dependency on the `langchain` package.
 */
export interface LangChainMiddlewareLike {
  name: string;
  stateSchema?: unknown;
  contextSchema?: unknown;
  tools?: readonly unknown[];
  beforeAgent?: LangChainStateHook;
  beforeModel?: LangChainStateHook;
  afterModel?: LangChainStateHook;
  afterAgent?: LangChainStateHook;
  wrapModelCall?: (request: any, handler: any) => unknown;
  wrapToolCall?: (request: any, handler: any) => unknown;
}
/* eslint-enable @typescript-eslint/no-explicit-any */

/**
 * The Keel side of the plugin: its `name` (required: LangChain names such as
 * `PIIMiddleware[email]` are not plugin names) and any other manifest field: `observes` /
 * `mutates` (plugin-wide or per hook under `hooks`), `requiresBefore`, hook `order`
 * placements, `channels`, `config`, `version`, `description`.
 */
export type LangChainManifestPart = Partial<Omit<Manifest, "name" | "hooks">> & { name: string; hooks?: Manifest["hooks"] };

export interface LangChainMiddlewareOptions {
  /** The stop reason a `jumpTo: "end"` records (default `jump_to_end`). */
  stopReason?: string;
}

const STATE_HOOKS = ["beforeAgent", "beforeModel", "afterModel", "afterAgent"] as const;
const WRAP_HOOKS = ["wrapModelCall", "wrapToolCall"] as const;
type StateHookName = (typeof STATE_HOOKS)[number];

/**
 * Run a LangChain v1 middleware as a Keel plugin. The author declares in `manifestPart` what
 * its hooks read and write (so the race check covers it, and enforcement refuses anything
 * else); the middleware's own state fields become channels it owns (every state hook reads
 * and writes them, as in LangChain), its `contextSchema` the plugin's options (the options
 * are its `runtime.context`), its `tools` the plugin's tools. A `jumpTo: "end"` is a stop
 * request that ends the run. docs/langchain.md has the whole mapping.
 *
 * @example
 * const pii = fromLangChainMiddleware(piiMiddleware("email", { strategy: "redact" }), {
 *   name: "pii-email",
 *   hooks: { beforeModel: { mutates: ["messages"] } },
 * });
 */
export function fromLangChainMiddleware(middleware: LangChainMiddlewareLike, manifestPart: LangChainManifestPart, options: LangChainMiddlewareOptions = {}): Plugin {
  if (typeof middleware !== "object" || middleware === null || typeof middleware.name !== "string") {
    throw new KeelError("KEEL_ERR_LANGCHAIN_MIDDLEWARE_INVALID", "fromLangChainMiddleware takes a LangChain middleware (what `createMiddleware` returns: an object with a `name` and hooks)");
  }
  if (typeof manifestPart !== "object" || manifestPart === null || typeof manifestPart.name !== "string") {
    throw new KeelError("KEEL_ERR_LANGCHAIN_MIDDLEWARE_INVALID", `the manifest part for LangChain middleware \`${middleware.name}\` needs a \`name\` (a Keel plugin name, ^[a-z][a-z0-9-]*$)`);
  }
  const implemented = [...STATE_HOOKS, ...WRAP_HOOKS].filter((hook) => middleware[hook] !== undefined);
  const extra = Object.keys(manifestPart.hooks ?? {}).filter((hook) => !implemented.includes(hook as HookName));
  if (extra.length > 0) {
    throw new KeelError(
      "KEEL_ERR_LANGCHAIN_MIDDLEWARE_INVALID",
      `the manifest part of \`${manifestPart.name}\` declares ${extra.map((h) => `\`${h}\``).join(", ")}, which LangChain middleware \`${middleware.name}\` does not implement (it has ${implemented.map((h) => `\`${h}\``).join(", ") || "no hooks"})`,
    );
  }
  const fields = manifestPart.channels ? [] : stateFieldsOf(middleware.stateSchema, middleware.name);
  const channels = manifestPart.channels ?? channelsOf(fields, middleware.name);
  const own = Object.keys(channels);
  const adapter = new Adapter(middleware, fields, options.stopReason ?? "jump_to_end");

  const hooks: Hooks = {};
  const declared: Manifest["hooks"] = {};
  for (const hook of implemented) {
    const given: HookDeclaration = manifestPart.hooks?.[hook] ?? {};
    let observes = given.observes ?? manifestPart.observes ?? [];
    let mutates = given.mutates ?? manifestPart.mutates ?? [];
    if (hook === "wrapModelCall" || hook === "wrapToolCall") {
      observes = withNames(observes, own);
    } else {
      observes = withNames(observes, own);
      mutates = withNames(mutates, own);
      if (canJumpTo(middleware[hook]).includes("end") && hook !== "afterAgent") mutates = withNames(mutates, ["stopReasons"]);
    }
    declared[hook] = { ...given, ...(observes.length > 0 ? { observes } : {}), ...(mutates.length > 0 ? { mutates } : {}) };
  }
  for (const hook of implemented) {
    if (hook === "wrapModelCall") hooks.wrapModelCall = (request, next, ctx) => adapter.wrapModelCall(request, next, ctx);
    else if (hook === "wrapToolCall") hooks.wrapToolCall = (request, next, ctx) => adapter.wrapToolCall(request, next, ctx);
    else hooks[hook] = (state, ctx) => adapter.stateHook(hook, state, ctx);
  }

  const { name, hooks: _hooks, channels: _channels, config, ...rest } = manifestPart;
  const configSchema = config ?? configSchemaOf(middleware.contextSchema);
  const manifest: Manifest = {
    version: "1.0.0",
    kind: "middleware",
    kernel: ">=0.1.0",
    description: `LangChain middleware ${middleware.name}`,
    ...rest,
    name,
    hooks: declared,
    ...(own.length > 0 ? { channels } : {}),
    ...(configSchema ? { config: configSchema } : {}),
  };
  const tools = (middleware.tools ?? []).map((tool) => toKeelTool(tool as ToolLike));
  return definePlugin({ manifest, hooks, ...(tools.length > 0 ? { tools } : {}) });
}

class Adapter {
  constructor(
    private readonly middleware: LangChainMiddlewareLike,
    private readonly fields: readonly StateField[],
    private readonly stopReason: string,
  ) {}

  async stateHook(hook: StateHookName, state: ChannelState, ctx: HookContext): Promise<ChannelUpdate | undefined> {
    const declared = this.middleware[hook]!;
    const fn = typeof declared === "function" ? declared : declared.hook;
    let result = (await fn(this.state(state), this.runtime(ctx))) as Record<string, unknown> | undefined | null;
    if (result === undefined || result === null) return undefined;
    if (typeof result !== "object") throw new KeelError("KEEL_ERR_LANGCHAIN_UNSUPPORTED", `LangChain middleware \`${this.middleware.name}\` returned ${typeof result} from ${hook}; a state hook returns a state update or nothing`);
    if (isCommand(result)) throw unsupported(this.middleware.name, hook, "returned a LangGraph Command");
    // LangChain's control action `{ type: "terminate", error?, result?, jumpTo? }`.
    if (result.type === "terminate") {
      if (result.error) throw result.error;
      result = { ...((result.result as Record<string, unknown> | undefined) ?? {}), jumpTo: result.jumpTo };
    }
    const { jumpTo, ...update } = result;
    if (Array.isArray(update.messages)) {
      // New messages get stable ids here (LangGraph's reducer would give them random ones).
      update.messages.forEach((m, i) => {
        if (BaseMessage.isInstance(m) && !m.id) ensureMessageId(m, `${ctx.runId}:${ctx.plugin}:${hook}:${ctx.turn}:${i + 1}`);
      });
    }
    if (jumpTo !== undefined && jumpTo !== null) this.jump(hook, String(jumpTo), update, ctx);
    return update;
  }

  /** `jumpTo` onto Keel's loop: `end` is a stop request that ends the run; the rest only where Keel goes there anyway. */
  private jump(hook: StateHookName, target: string, update: ChannelUpdate, ctx: HookContext): void {
    const allowed = canJumpTo(this.middleware[hook]);
    if (!allowed.includes(target)) {
      throw new KeelError(
        "KEEL_ERR_LANGCHAIN_JUMP",
        `LangChain middleware \`${this.middleware.name}\` jumped to \`${target}\` in ${hook}, which its hook does not declare in canJumpTo (${allowed.join(", ") || "none"})`,
      );
    }
    if (target === "end") {
      if (hook === "afterAgent") return; // the agent is ending already
      const entry = { reason: this.stopReason, by: ctx.plugin, turn: ctx.turn, detail: `LangChain middleware ${this.middleware.name} jumped to end in ${hook}`, request: "end" };
      update.stopReasons = [...((update.stopReasons as unknown[] | undefined) ?? []), entry];
      return;
    }
    if (target === "model" && (hook === "beforeAgent" || hook === "beforeModel")) return; // the model call comes next
    if (target === "tools" && hook === "afterModel") return; // Keel runs the pending tool calls next (and ends when there are none)
    throw new KeelError(
      "KEEL_ERR_LANGCHAIN_JUMP",
      `LangChain middleware \`${this.middleware.name}\` jumped to \`${target}\` in ${hook}, which Keel's loop cannot do (only \`end\` everywhere, \`model\` from beforeAgent/beforeModel, \`tools\` from afterModel)`,
    );
  }

  async wrapModelCall(request: ModelRequest, next: ModelHandler, ctx: HookContext): Promise<AIMessage> {
    const first = request.messages[0];
    const system = first && SystemMessage.isInstance(first) ? first : undefined;
    // Copies the middleware may edit in place (LangChain's contextEditingMiddleware does); compared item by item below.
    const original = system ? request.messages.slice(1) : [...request.messages];
    const messages = [...original];
    const systemMessage = system ?? new SystemMessage("");
    const systemPrompt = messageText(systemMessage);
    const originalTools = request.tools.map((t) => langChainSourceOf(t) ?? t);
    const tools = [...originalTools];
    const lcRequest = Object.freeze({ model: undefined, messages, systemMessage, systemPrompt, tools, toolChoice: undefined, responseFormat: undefined, modelSettings: undefined, state: this.state(request.state), runtime: this.runtime(ctx) });
    const handler = async (changed: typeof lcRequest) => {
      for (const key of ["model", "toolChoice", "responseFormat", "modelSettings"] as const) {
        if (changed[key] !== undefined) throw unsupported(this.middleware.name, "wrapModelCall", `set \`${key}\` of the model request`);
      }
      const sameTools = sameItems(changed.tools, originalTools);
      if (sameItems(changed.messages, original) && changed.systemMessage === systemMessage && changed.systemPrompt === systemPrompt && sameTools) return next(request);
      let nextSystem: SystemMessage | undefined = system;
      if (changed.systemMessage !== systemMessage) nextSystem = changed.systemMessage;
      else if (changed.systemPrompt !== systemPrompt) nextSystem = new SystemMessage({ content: changed.systemPrompt, ...(system?.id ? { id: system.id } : {}) });
      if (nextSystem && !system && messageText(nextSystem) === "") nextSystem = undefined;
      const keelTools: KeelTool[] = sameTools
        ? request.tools
        : changed.tools.map((t) => {
            const at = originalTools.indexOf(t);
            return at >= 0 ? request.tools[at]! : toKeelTool(t as ToolLike);
          });
      return next({ ...request, messages: nextSystem ? [nextSystem, ...changed.messages] : [...changed.messages], tools: keelTools });
    };
    const out = await this.middleware.wrapModelCall!(lcRequest, handler);
    if (isCommand(out)) throw unsupported(this.middleware.name, "wrapModelCall", "returned a LangGraph Command");
    return out as AIMessage;
  }

  async wrapToolCall(request: ToolRequest, next: ToolHandler, ctx: HookContext): Promise<ToolMessage> {
    const tool = request.tool ? (langChainSourceOf(request.tool) ?? request.tool) : undefined;
    // A copy the middleware may edit in place; compared by value below.
    const toolCall = { ...request.toolCall, args: JSON.parse(JSON.stringify(request.toolCall.args ?? {})) as Record<string, unknown>, type: "tool_call" as const };
    const asked = canonicalJson([request.toolCall.id, request.toolCall.name, request.toolCall.args ?? {}]);
    const lcRequest = Object.freeze({ toolCall, tool, state: this.state(request.state), runtime: this.runtime(ctx) });
    const handler = async (changed: typeof lcRequest) => {
      const sameCall = canonicalJson([changed.toolCall.id, changed.toolCall.name, changed.toolCall.args ?? {}]) === asked;
      if (sameCall && changed.tool === tool) return next(request);
      const call = changed.toolCall;
      const nextTool = changed.tool === tool ? request.tool : changed.tool === undefined ? undefined : toKeelTool(changed.tool as ToolLike);
      return next({ ...request, toolCall: { id: call.id ?? request.toolCall.id, name: call.name, args: call.args }, tool: nextTool });
    };
    const out = await this.middleware.wrapToolCall!(lcRequest, handler);
    if (isCommand(out)) throw unsupported(this.middleware.name, "wrapToolCall", "returned a LangGraph Command");
    return out as ToolMessage;
  }

  /** The hook's view of the channels, with the middleware's own fields at their Zod defaults while unset (as LangChain starts them). */
  private state(view: ChannelState): Record<string, unknown> {
    const withDefaults: Record<string, unknown> = { ...view };
    for (const field of this.fields) {
      if (withDefaults[field.name] === undefined && field.defaultValue) withDefaults[field.name] = field.defaultValue();
    }
    return withDefaults;
  }

  /** LangChain's `runtime`: `context` is the plugin's options, `writer` emits `custom` stream events; there is no store and no interrupt. */
  private runtime(ctx: HookContext) {
    const name = this.middleware.name;
    return Object.freeze({
      context: Object.freeze(contextOf(this.middleware.contextSchema, ctx.config)),
      configurable: Object.freeze({ thread_id: ctx.threadId, run_id: ctx.runId, agent: ctx.agent }),
      signal: ctx.signal,
      writer: (chunk: unknown) => ctx.emit("custom", chunk),
      interrupt: () => {
        throw unsupported(name, ctx.hook, "called interrupt()");
      },
    });
  }
}

function sameItems(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a.length === b.length && a.every((item, i) => item === b[i]);
}

function canJumpTo(hook: LangChainStateHook | undefined): readonly string[] {
  return hook && typeof hook === "object" ? (hook.canJumpTo ?? []) : [];
}

/** `list` plus `names` it lacks (references compared by name). */
function withNames(list: readonly Reference[], names: readonly string[]): Reference[] {
  const have = new Set(list.map((r) => (typeof r === "string" ? r : r.name)));
  return [...list, ...names.filter((n) => !have.has(n))];
}

function unsupported(middleware: string, hook: string, what: string): KeelError {
  return new KeelError("KEEL_ERR_LANGCHAIN_UNSUPPORTED", `LangChain middleware \`${middleware}\` ${what} in ${hook}, which does not map onto Keel (docs/langchain.md lists what does)`);
}

function isCommand(value: unknown): boolean {
  return typeof value === "object" && value !== null && (value as { lg_name?: unknown }).lg_name === "Command";
}
