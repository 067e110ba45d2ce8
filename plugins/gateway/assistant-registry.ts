import { randomUUID } from "node:crypto";
import { graphAssistantUuid } from "../../kernel/assistants/graph-uuid.js";
import { MemoryAssistantStore } from "../../kernel/assistants/memory-assistant-store.js";
import type { AssistantRecord, AssistantStore } from "../../kernel/assistants/types.js";
import { isRecord } from "../../contracts/plain-object.js";
import { deepMerge } from "../../kernel/compose/config.js";
import { isKeelError } from "../../kernel/errors.js";
import type { GatewayContext } from "./context.js";
import { HttpError, notFound } from "./http-errors.js";
import type { GatewayDeps } from "./ports.js";
import type { RunCreateBody } from "./schemas.js";

/** The owner of the built-in stacks' assistants (their `metadata.created_by`). */
export const SYSTEM_OWNER = "system";

/**
 * Where a run's validated plugin options travel to the executor (stack file < assistant <
 * request): `config.configurable[PLUGIN_OPTIONS_KEY]`, always set by the gateway (a
 * caller's own value is replaced). Not `context`: request hygiene strips runtime-owned
 * key names (`receipts`, …) at any depth there, and plugin names can be such names.
 */
export const PLUGIN_OPTIONS_KEY = "keel_plugin_options";

type Json = Record<string, unknown>;
type PluginLayer = Record<string, Json>;

const fallbackStores = new WeakMap<GatewayDeps, AssistantStore>();

/** The host's assistant store, or one in memory for this gateway. */
export function assistantStoreOf(ctx: GatewayContext): AssistantStore {
  if (ctx.deps.assistants) return ctx.deps.assistants;
  let store = fallbackStores.get(ctx.deps);
  if (!store) fallbackStores.set(ctx.deps, (store = new MemoryAssistantStore()));
  return store;
}

/** The served stack an id names: the stack's name, or LangGraph's UUID of it. */
export function servedStackOf(ctx: GatewayContext, id: string): string | undefined {
  return ctx.stacks.find((stack) => stack === id || graphAssistantUuid(stack) === id);
}

/** A served stack as a system assistant (not stored; created when the server started). */
export function systemAssistant(ctx: GatewayContext, stack: string): AssistantRecord {
  return {
    assistantId: stack,
    graphId: stack,
    name: stack,
    description: ctx.deps.catalog?.description(stack) ?? `Keel agent on the \`${stack}\` stack`,
    config: {},
    context: {},
    metadata: { created_by: SYSTEM_OWNER },
    version: 1,
    owner: SYSTEM_OWNER,
    createdAt: ctx.startedAt,
    updatedAt: ctx.startedAt,
  };
}

/** A system assistant, or a user assistant of `user`; anything else (another user's) is a 404. */
export async function visibleAssistant(ctx: GatewayContext, id: string, user: string): Promise<AssistantRecord> {
  const stack = servedStackOf(ctx, id);
  if (stack) return systemAssistant(ctx, stack);
  const found = await assistantStoreOf(ctx).getAssistant(id);
  if (!found || found.owner !== user) throw notFound(`assistant \`${id}\``);
  return found;
}

/** A user assistant of `user`, to change: a system assistant is read-only (409), another user's a 404. */
export async function ownedUserAssistant(ctx: GatewayContext, id: string, user: string): Promise<AssistantRecord> {
  if (servedStackOf(ctx, id)) throw new HttpError(409, "KEEL_ERR_HTTP_ASSISTANT_READ_ONLY", `assistant \`${id}\` is a system assistant (a served stack) and cannot be changed; create a user assistant with \`graph_id\` instead`);
  const found = await assistantStoreOf(ctx).getAssistant(id);
  if (!found || found.owner !== user) throw notFound(`assistant \`${id}\``);
  return found;
}

/** A fresh assistant id (LangGraph's are UUIDs) that names no stack. */
export function newAssistantId(): string {
  return randomUUID();
}

/**
 * The graph must be served and the options must fit it (`catalog.checkOptions`); a
 * problem is a 400 whose pointer is the request's (`/context/plugins/receipts/render`).
 */
export function checkAssistantOptions(ctx: GatewayContext, graphId: string, context: Json, pointers: { graph: string; context: string }): void {
  if (!ctx.stacks.includes(graphId)) {
    throw new HttpError(400, "KEEL_ERR_HTTP_INVALID_BODY", `invalid body at \`${pointers.graph}\`: \`${graphId}\` is not a served stack (${ctx.stacks.join(", ")})`, pointers.graph);
  }
  try {
    ctx.deps.catalog?.checkOptions(graphId, context);
  } catch (error) {
    if (!isKeelError(error)) throw error;
    // Options that fitted the old graph but not the new one: the graph change is the problem.
    const pointer = pointers.context === pointers.graph ? pointers.graph : `${pointers.context}${error.pointer ?? ""}`;
    throw new HttpError(400, "KEEL_ERR_HTTP_INVALID_BODY", `invalid body at \`${pointer}\`: ${error.message}`, pointer);
  }
}

/**
 * A run's body with its assistant applied, layered stack file < assistant < request:
 * `assistant_id` a served stack (the UUID alias becomes the stack name) or the caller's
 * user assistant (else 404); `config` the assistant's under the request's (`configurable`
 * merged key by key); `context` the assistant's under the request's, its `maxTurns`
 * becoming the run's turn limit and `model` its model unless the request names them; the
 * plugin options of both merged plugin by plugin, checked against the stack (400 with
 * the pointer), and handed to the executor as `config.configurable.keel_plugin_options`.
 */
export async function applyAssistant(ctx: GatewayContext, user: string, body: RunCreateBody): Promise<RunCreateBody> {
  const assistant = await visibleAssistant(ctx, body.assistant_id, user);
  const requestContext = (body.context ?? {}) as Json;
  const requestConfig = (body.config ?? {}) as Json;
  const own = assistant.context;
  // The plugin options go to `configurable` only (see PLUGIN_OPTIONS_KEY), not twice.
  const context: Json = { ...withoutKeys(own, ["plugins", "maxTurns"]), ...withoutKeys(requestContext, ["plugins"]) };
  const configurable = { ...asObject(assistant.config.configurable), ...asObject(requestConfig.configurable) };
  if (typeof own.maxTurns === "number" && context.max_turns == null && configurable.max_turns == null) context.max_turns = own.maxTurns;
  if (typeof own.model === "string" && configurable.model !== undefined) delete context.model;
  const plugins = mergeLayers(asObject(own.plugins) as PluginLayer, asObject(requestContext.plugins) as PluginLayer);
  if (Object.keys(plugins).length > 0) {
    checkAssistantOptions(ctx, assistant.graphId, { plugins }, { graph: "/assistant_id", context: "/context" });
    configurable[PLUGIN_OPTIONS_KEY] = plugins;
  } else {
    delete configurable[PLUGIN_OPTIONS_KEY];
  }
  const config: Json = { ...assistant.config, ...requestConfig, configurable };
  return { ...body, assistant_id: assistant.assistantId, context, config };
}

/** Plugin option layers, later wins, each plugin's options merged key by key (deeply). */
export function mergeLayers(...layers: PluginLayer[]): PluginLayer {
  const out: PluginLayer = {};
  for (const layer of layers) {
    for (const [plugin, options] of Object.entries(layer)) out[plugin] = deepMerge(out[plugin] ?? {}, options) as Json;
  }
  return out;
}

const isObject = isRecord;
const asObject = (value: unknown): Json => (isObject(value) ? value : {});

function withoutKeys(value: Json, keys: readonly string[]): Json {
  return Object.fromEntries(Object.entries(value).filter(([key]) => !keys.includes(key)));
}
