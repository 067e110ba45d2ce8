import type { RunFence } from "../ports/fence.js";
import { GraphInterrupt, interrupt } from "@langchain/langgraph";
import { isGraphPause } from "./pause.js";
import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import type { Composition } from "../compose/types.js";
import { KeelError, isKeelError } from "../errors.js";
import type { ApprovalJournalEntry, ChannelUpdate, GuardEventData, HookContext, HookName, ModelHandler, ModelRequest, ToolHandler, ToolRequest } from "../plugin/types.js";
import type { WorkingChannels } from "./working-channels.js";
import type { RunScope } from "./run-scope.js";
import { agentEventName } from "./stream-graph.js";
import { freezeWritten, isFrozenWrite, sameSnapshot, snapshot, undeclaredEdit, WriteGuard } from "./enforcement.js";

interface HookAccess {
  sees: Set<string>;
  writes: Set<string>;
  /** The hook's write guard per channel it sees (built when first needed). */
  guardOf: (channel: string) => WriteGuard;
}

function hookAccess(plugin: string, hook: string): HookAccess {
  const guards = new Map<string, WriteGuard>();
  const guardOf = (channel: string) => {
    let guard = guards.get(channel);
    if (!guard) guards.set(channel, (guard = new WriteGuard(plugin, hook, channel)));
    return guard;
  };
  return { sees: new Set(), writes: new Set(), guardOf };
}

export interface AgentIdentity {
  threadId: string;
  runId: string;
  agent: string;
  signal: AbortSignal;
  /** The run's lease fence (`ctx.fence`), when it has one. */
  fence?: RunFence;
  /** The run's user (`ctx.user`), when the runtime was given one. */
  user?: string;
  /**
   * `ctx.summarize`, given the turn about to be made, its working channels and the runner
   * (a summary model's call goes through the runner's retry layers: summary-call.ts).
   */
  summarize(messages: BaseMessage[], at: { turn: number; state: WorkingChannels; runner: HookRunner }): Promise<string>;
  port<T>(name: string): T;
}

/** Errors from an inner layer pass through outer wrap hooks unchanged (not blamed on them). */
const passingThrough = new WeakSet<object>();

/**
 * Blame a hook's own exception on it: Keel errors keep their code, others become
 * KEEL_ERR_PLUGIN_FAILED, keeping the error's own string `code` as `pluginCode` (with its
 * `solve` line when the plugin's manifest registers the code under `errors`).
 */
export function blame(error: unknown, plugin: string, hook: HookName, codes?: Readonly<Record<string, { solve: string }>>): unknown {
  if (typeof error === "object" && error !== null && passingThrough.has(error)) return error;
  // A pause (`interrupt()` in a hook) is not the plugin's failure: it propagates as LangGraph threw it.
  if (isGraphPause(error)) return error;
  if (isKeelError(error) && error.plugin !== undefined) return error;
  // A strict-mode write to a frozen (written) value: the hook edited state in place.
  if (isFrozenWrite(error)) return new KeelError("KEEL_ERR_HOOK_UNDECLARED_MUTATION", `${undeclaredEdit(plugin, hook, "a value it was handed").message} (${(error as Error).message})`, { plugin, hook, cause: error });
  if (isKeelError(error)) return new KeelError(error.code, `plugin \`${plugin}\` in ${hook}: ${error.message}`, { plugin, hook, cause: error, ...(error.pointer === undefined ? {} : { pointer: error.pointer }) });
  const message = error instanceof Error ? error.message : String(error);
  const own = (error as { code?: unknown } | null)?.code;
  const pluginCode = typeof own === "string" && own !== "" ? own : undefined;
  const solve = pluginCode !== undefined && codes !== undefined && Object.hasOwn(codes, pluginCode) ? `; ${codes[pluginCode]!.solve}` : "";
  const text = `plugin \`${plugin}\` failed in ${hook}: ${pluginCode === undefined ? "" : `${pluginCode}: `}${message}${solve}`;
  return new KeelError("KEEL_ERR_PLUGIN_FAILED", text, { plugin, hook, cause: error, ...(pluginCode === undefined ? {} : { pluginCode }) });
}

/** What a wrap hook must resolve to: what its `next()` resolves to. */
function checkWrapResult(result: unknown, plugin: string, hook: "wrapModelCall" | "wrapToolCall"): unknown {
  const ok = hook === "wrapModelCall" ? AIMessage.isInstance(result) : ToolMessage.isInstance(result);
  if (ok) return result;
  const expected = hook === "wrapModelCall" ? "an AIMessage" : "a ToolMessage";
  const got =
    result === null || result === undefined
      ? String(result)
      : Array.isArray(result)
        ? "an array"
        : typeof result === "object"
          ? `an object (${(result as object).constructor?.name ?? "no class"})`
          : `a ${typeof result}`;
  throw new KeelError(
    "KEEL_ERR_HOOK_RETURN_TYPE",
    `plugin \`${plugin}\` returned ${got} from ${hook}; a ${hook} hook must return ${expected}: what \`await next(request)\` gave it, or a new one`,
    { plugin, hook },
  );
}

/**
 * Runs the six hooks with LangChain v1 dispatch (the chains come from the composition,
 * already in execution order) and enforces the manifest at run time: a hook sees only
 * the channels it observes or mutates, and writing any other channel throws
 * `KEEL_ERR_HOOK_UNDECLARED_MUTATION`.
 */
export class HookRunner {
  /** What each (hook, plugin) sees and writes, by hook then plugin (looked up on every hook call: no key string built). */
  private readonly access = new Map<string, Map<string, HookAccess>>();
  /**
   * Set by the agent step while the afterModel chain runs right after a model call: an
   * `ctx.interrupt()` there only defers the chain to its own step (agent-node.ts), without
   * asking LangGraph — a resume value meant for another pause (a static one before this
   * step) must not answer it, and nothing is journaled for a pause that does not happen yet.
   */
  deferInterrupts = false;

  constructor(
    readonly composition: Composition,
    private readonly scope: RunScope,
    private readonly identity: AgentIdentity,
    /** Run-time enforcement of in-place edits and wrap-hook pseudo-channels (off only for tests and benchmarks). */
    readonly enforce = true,
  ) {
    for (const row of composition.access) {
      let byPlugin = this.access.get(row.hook);
      if (!byPlugin) this.access.set(row.hook, (byPlugin = new Map()));
      let entry = byPlugin.get(row.plugin);
      if (!entry) byPlugin.set(row.plugin, (entry = hookAccess(row.plugin, row.hook)));
      entry.sees.add(row.channel);
      if (row.mode === "write") entry.writes.add(row.channel);
    }
  }

  chain(hook: HookName): readonly string[] {
    return this.composition.hooks[hook];
  }

  private accessOf(plugin: string, hook: HookName): HookAccess {
    return this.access.get(hook)?.get(plugin) ?? NO_ACCESS;
  }

  /** Throws unless every channel in `update` is declared in the hook's `mutates`. */
  checkUpdate(plugin: string, hook: HookName, update: ChannelUpdate): void {
    const { writes } = this.accessOf(plugin, hook);
    for (const channel of Object.keys(update)) {
      if (update[channel] === undefined) continue;
      if (!writes.has(channel) || channel.includes(".")) {
        throw new KeelError(
          "KEEL_ERR_HOOK_UNDECLARED_MUTATION",
          `plugin \`${plugin}\` wrote \`${channel}\` in ${hook}, but its manifest does not declare it in \`mutates\`; add it to mutates or stop writing it`,
          { plugin, hook },
        );
      }
    }
  }

  view(plugin: string, hook: HookName, state: WorkingChannels): Readonly<Record<string, unknown>> {
    const access = this.accessOf(plugin, hook);
    return state.view(access.sees, access.guardOf);
  }

  /**
   * The `ctx` a hook gets. `breach` records a kernel rule it broke through `ctx` (an
   * undeclared `ctx.update`): the error is thrown to the hook and also kept, so a hook that
   * catches it still fails once it returns.
   */
  context(plugin: string, hook: HookName, turn: number, onUpdate: (update: ChannelUpdate) => void, state: WorkingChannels, breach: Breaches = new Breaches()): HookContext {
    const resolved = this.composition.plugins.get(plugin);
    const { scope, identity } = this;
    return {
      plugin,
      hook,
      threadId: identity.threadId,
      runId: identity.runId,
      agent: identity.agent,
      turn,
      config: resolved?.config ?? {},
      signal: identity.signal,
      ...(identity.fence ? { fence: identity.fence } : {}),
      ...(identity.user !== undefined ? { user: identity.user } : {}),
      emit: (event, data) => {
        // A child's `custom` events go under its namespace when the client asked for subgraphs.
        const name = event === "custom" ? agentEventName(event, identity.agent, scope.stream) : event;
        if (name !== undefined) scope.emit(name, data);
      },
      guard: (data: GuardEventData) => {
        scope.emit(agentEventName("guard", identity.agent, scope.stream) ?? "guard", { plugin, agent: identity.agent, ...data });
        scope.journal({ agent: identity.agent, turn, kind: "guard", name: plugin, status: data.action, durationMs: 0, ...(data.retryInMs === undefined ? {} : { retryInMs: data.retryInMs }) });
      },
      update: (partial) => {
        if (hook !== "wrapModelCall" && hook !== "wrapToolCall") {
          throw breach.record(new KeelError("KEEL_ERR_HOOK_UNDECLARED_MUTATION", `plugin \`${plugin}\` called ctx.update in ${hook}; state hooks return their update instead`, { plugin, hook }));
        }
        try {
          this.checkUpdate(plugin, hook, partial);
        } catch (error) {
          throw breach.record(error);
        }
        onUpdate(partial);
      },
      summarize: (messages) => this.summarize(messages, turn, state),
      now: () => scope.isoNow(),
      port: <T>(name: string) => identity.port<T>(name),
      interrupt: <T>(value: unknown, options?: { journal?: readonly ApprovalJournalEntry[] }): T => {
        if (hook !== "afterModel") {
          throw new KeelError("KEEL_ERR_HOOK_INTERRUPT_OUTSIDE_AFTER_MODEL", `plugin \`${plugin}\` called ctx.interrupt in ${hook}; it pauses a run only in afterModel (before the tools step): move the call there`, { plugin, hook });
        }
        if (this.deferInterrupts) throw new GraphInterrupt([{ value }]);
        try {
          return interrupt<unknown, T>(value);
        } catch (error) {
          // The run pauses here (not at a deferred attempt): the entries are written once per pause.
          if (isGraphPause(error)) for (const entry of options?.journal ?? []) journalApproval(scope, identity.agent, turn, entry);
          throw error;
        }
      },
      journal: (entry) => journalApproval(scope, identity.agent, turn, entry),
    };
  }

  /** Run a state hook chain (before and after hooks), applying each update before the next hook runs. */
  async runStateChain(hook: "beforeAgent" | "beforeModel" | "afterModel" | "afterAgent", state: WorkingChannels, turn: number): Promise<void> {
    for (const plugin of this.chain(hook)) {
      const fn = this.composition.plugins.get(plugin)!.plugin.hooks[hook]!;
      const breaches = new Breaches();
      const ctx = this.context(plugin, hook, turn, () => undefined, state, breaches);
      let update: ChannelUpdate | void | undefined;
      try {
        update = await fn(this.view(plugin, hook, state), ctx);
        breaches.throwFirst();
        if (update) this.checkUpdate(plugin, hook, update);
      } catch (error) {
        breaches.throwFirst();
        throw blame(error, plugin, hook, this.composition.plugins.get(plugin)?.plugin.manifest.errors);
      }
      if (update) state.apply(update, `plugin \`${plugin}\` (${hook})`);
    }
  }

  /** Compose the wrapModelCall onion around `innermost`; updates are collected in call order. */
  modelOnion(innermost: ModelHandler, state: WorkingChannels, turn: number, updates: Array<[string, ChannelUpdate]>): ModelHandler {
    return this.entry(this.onion("wrapModelCall", innermost as (r: unknown) => Promise<unknown>, state, turn, updates)) as ModelHandler;
  }

  toolOnion(innermost: ToolHandler, state: WorkingChannels, turn: number, updates: Array<[string, ChannelUpdate]>): ToolHandler {
    return this.entry(this.onion("wrapToolCall", innermost as (r: unknown) => Promise<unknown>, state, turn, updates)) as ToolHandler;
  }

  /** The kernel's request enters the onion frozen (what it holds was written by the kernel this turn). */
  private entry(handler: (request: unknown) => Promise<unknown>): (request: unknown) => Promise<unknown> {
    return this.enforce ? (request) => handler(freezeRequest(request as Record<string, unknown>)) : handler;
  }

  /**
   * The wrapModelCall onion of the retry layers only (hooks declaring `retries: true`, e.g.
   * error-fallback), for a model call that is not a turn (a summary call): the other wrap
   * hooks shape a turn's request and do not apply to it.
   */
  retryOnion(innermost: ModelHandler, state: WorkingChannels, turn: number, updates: Array<[string, ChannelUpdate]>): ModelHandler {
    const retryLayers = this.chain("wrapModelCall").filter((plugin) => this.composition.plugins.get(plugin)!.plugin.manifest.hooks.wrapModelCall?.retries === true);
    return this.entry(this.onion("wrapModelCall", innermost as (r: unknown) => Promise<unknown>, state, turn, updates, retryLayers)) as ModelHandler;
  }

  private summarize(messages: BaseMessage[], turn: number, state: WorkingChannels): Promise<string> {
    return this.identity.summarize(messages, { turn, state, runner: this });
  }

  private onion(
    hook: "wrapModelCall" | "wrapToolCall",
    innermost: (request: unknown) => Promise<unknown>,
    state: WorkingChannels,
    turn: number,
    updates: Array<[string, ChannelUpdate]>,
    chain: readonly string[] = this.chain(hook),
  ): (request: unknown) => Promise<unknown> {
    let handler = innermost;
    const [requestChannel, responseChannel] = hook === "wrapModelCall" ? ["model.request", "model.response"] : ["tool.request", "tool.response"];
    // A rule broken anywhere in this onion fails every layer it returns through, even one that caught the error.
    const breaches = new Breaches();
    // `verified[i]`: the response layer i just returned and its fingerprint, taken when it was checked
    // unchanged; the layer outside takes that as its own "before" (the same object, nothing ran in
    // between), so a chain of L guarded layers fingerprints a response L + 1 times, not 2L.
    const verified: Array<{ response: unknown; print: unknown[] } | undefined> = [];
    for (let i = chain.length - 1; i >= 0; i--) {
      const plugin = chain[i]!;
      const resolved = this.composition.plugins.get(plugin)!;
      const fn = resolved.plugin.hooks[hook] as (req: unknown, next: (r: unknown) => Promise<unknown>, ctx: HookContext) => Promise<unknown>;
      const mayRetry = resolved.plugin.manifest.hooks[hook]?.retries === true;
      const { writes } = this.accessOf(plugin, hook);
      const guardRequest = this.enforce && !writes.has(requestChannel);
      const guardResponse = this.enforce && !writes.has(responseChannel);
      const inner = handler;
      handler = async (request: unknown) => {
        let calls = 0;
        const handed: Record<string, unknown> = { ...(request as object), state: this.view(plugin, hook, state) };
        if (guardRequest) Object.freeze(handed);
        // The response is not frozen (outer layers that declare it, and the kernel, edit it in place): a layer that may not change it gets it fingerprinted.
        let answer: { response: unknown; print: unknown[] } | null = null;
        // `next()` without a request means "the current request", as the hook received it.
        const next = async (req: unknown) => {
          if (++calls > 1 && !mayRetry) {
            throw breaches.record(new KeelError("KEEL_ERR_HOOK_NEXT_TWICE", `plugin \`${plugin}\` called next() twice in ${hook} without declaring \`retries: true\``, { plugin, hook }));
          }
          let forwarded = request;
          if (req !== undefined && req !== handed) {
            if (guardRequest) throw passing(breaches.record(undeclaredPseudo(plugin, hook, requestChannel, "passed another request to next()")));
            forwarded = this.enforce ? freezeRequest(withoutState(req)) : req;
          } else if (!guardRequest && req === handed) {
            forwarded = this.enforce ? freezeRequest(withoutState(handed)) : handed;
          }
          // Updates inner hooks made during an attempt that fails are dropped, so a retry cannot apply them twice.
          const mark = updates.length;
          try {
            const response = await inner(forwarded);
            const checked = verified[i + 1];
            verified[i + 1] = undefined;
            if (guardResponse) answer = { response, print: checked !== undefined && checked.response === response ? checked.print : snapshot(response) };
            return response;
          } catch (error) {
            updates.length = mark;
            throw passing(error);
          }
        };
        const ctx = this.context(plugin, hook, turn, (update) => updates.push([plugin, update]), state, breaches);
        let result: unknown;
        try {
          result = await fn(handed, next, ctx);
          breaches.throwFirst();
        } catch (error) {
          // The first rule broken is what failed, whatever the hook threw after it.
          breaches.throwFirst();
          throw blame(error, plugin, hook, resolved.plugin.manifest.errors);
        }
        checkWrapResult(result, plugin, hook);
        if (guardResponse) {
          const seen = answer as { response: unknown; print: unknown[] } | null;
          if (seen === null) throw undeclaredPseudo(plugin, hook, responseChannel, "answered without calling next()");
          if (result !== seen.response) throw undeclaredPseudo(plugin, hook, responseChannel, "returned another response than next() gave it");
          const print = snapshot(result);
          if (!sameSnapshot(seen.print, print)) throw undeclaredPseudo(plugin, hook, responseChannel, "changed the response in place");
          verified[i] = { response: result, print };
        }
        return result;
      };
    }
    return handler;
  }
}

/**
 * Kernel rules a hook broke (an undeclared write through `ctx.update`, `next()` twice,
 * another request passed on): the first is thrown again when the hook returns, so catching
 * the error does not get a hook past the rule. It is already blamed on the hook that broke it.
 */
class Breaches {
  private first: unknown;
  private broken = false;

  record<E>(error: E): E {
    if (!this.broken) {
      this.first = error;
      this.broken = true;
    }
    return error;
  }

  throwFirst(): void {
    if (this.broken) throw this.first;
  }
}

/** A (plugin, hook) the composition grants nothing: it sees no channel (so no guard is asked for) and writes none. */
const NO_ACCESS: HookAccess = hookAccess("", "");

function journalApproval(scope: RunScope, agent: string, turn: number, entry: ApprovalJournalEntry): void {
  scope.journal({ agent, turn, kind: "approval", durationMs: 0, ...entry });
}

function passing(error: unknown): unknown {
  if (typeof error === "object" && error !== null) passingThrough.add(error);
  return error;
}

function undeclaredPseudo(plugin: string, hook: HookName, channel: string, what: string): KeelError {
  return new KeelError(
    "KEEL_ERR_HOOK_UNDECLARED_MUTATION",
    `plugin \`${plugin}\` ${what} in ${hook}, but its manifest does not declare \`${channel}\` in \`hooks.${hook}.mutates\`; declare it, or pass the request on and return next()'s response unchanged`,
    { plugin, hook },
  );
}

function withoutState(request: unknown): Record<string, unknown> {
  const { state: _state, ...rest } = request as Record<string, unknown>;
  return rest;
}

/**
 * A request as it is passed on: the object, its message and tool lists, the tool call, the
 * tools (shallowly) and the messages it holds are frozen (those from the thread already are;
 * only new ones are walked).
 */
function freezeRequest(request: Record<string, unknown>): Record<string, unknown> {
  if (Object.isFrozen(request)) return request;
  for (const key of ["messages", "toolCall"]) if (request[key] !== undefined) freezeWritten(request[key]);
  // Tools are frozen shallowly: their JSON schemas are handed to providers and validators, which may annotate them.
  if (Array.isArray(request.tools)) for (const tool of Object.freeze(request.tools)) Object.freeze(tool);
  if (typeof request.tool === "object" && request.tool !== null) Object.freeze(request.tool);
  return Object.freeze(request);
}

export type { ModelRequest, ToolRequest, AIMessage, ToolMessage };
