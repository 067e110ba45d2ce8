import type { FastifyBaseLogger, FastifyInstance, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from "fastify";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { RunRecord, ThreadRecord } from "../../kernel/runs/types.js";
import type { FastifyRequest } from "fastify";
import { notFound } from "./http-errors.js";
import type { AuthResource } from "./auth-handler.js";
import type { AuthDecision, AuthorizeOptions } from "./authorize.js";
import type { GatewayDeps } from "./ports.js";
import type { WebhookSender } from "./webhook.js";

export type GatewayApp = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, TypeBoxTypeProvider>;

declare module "fastify" {
  interface FastifyRequest {
    /** The user the request acts as (set by the auth hook; `local` without API keys). */
    user: string;
  }
}

/** A Prometheus text exposition the host renders (the metrics plugin's registry). */
export interface MetricsExposition {
  readonly contentType: string;
  render(): Promise<string>;
}

/** What `/info` says is on: tracing (OTLP endpoint or null, LangSmith) and metrics. */
export interface ObservabilityInfo {
  tracing: { otlp: string | null; langsmith: boolean };
}

/** What every route module gets: the run service, the limits, and ownership checks. */
export interface GatewayContext {
  readonly deps: GatewayDeps;
  readonly stacks: readonly string[];
  readonly version: string;
  /** The kind of model the server runs (`/info`'s `model`), null when the host did not say. */
  readonly model: string | null;
  readonly heartbeatMs: number;
  /** How long `DELETE /threads/:tid` waits for the purge before answering 202. */
  readonly deleteWaitMs: number;
  /** When the server started: the assistants' `created_at`. */
  readonly startedAt: string;
  now(): string;
  /** Served on `GET /metrics` when given. */
  readonly metrics?: MetricsExposition;
  readonly observability: ObservabilityInfo;
  /** Sends runs' webhooks; absent: a run with a `webhook` is refused (400). */
  readonly webhooks?: WebhookSender;
  /**
   * Ask the server's custom auth handler (if any) about one action of a request
   * (plugins/gateway/README.md, "Route modules: auth and TTL hook points"): resolves with the decision (the value as the handler left
   * it, its metadata filter) or throws the refusal (404 for an action on an existing
   * resource, 403 otherwise). Without a handler every action is allowed.
   */
  authorize<T extends Record<string, unknown>>(request: FastifyRequest, resource: AuthResource, action: string, value: T, options?: AuthorizeOptions): Promise<AuthDecision<T>>;
}

/** The thread, if it exists and `user` created it; another user's thread is a 404, never a 403. */
export async function ownedThread(ctx: GatewayContext, threadId: string, user: string): Promise<ThreadRecord> {
  const thread = await ctx.deps.store.getThread(threadId);
  if (!thread || thread.owner !== user) throw notFound(`thread \`${threadId}\``);
  return thread;
}

/**
 * The thread, if `request`'s user owns it and the auth handler allows `threads:<action>` on
 * it (its metadata matching the handler's filter); else the same 404 as for a missing thread.
 * `value` is what the handler sees besides `thread_id`.
 */
export async function authorizedThread(
  ctx: GatewayContext,
  request: FastifyRequest,
  action: string,
  threadId: string,
  value: Record<string, unknown> = {},
): Promise<ThreadRecord> {
  const what = `thread \`${threadId}\``;
  const decision = await ctx.authorize(request, "threads", action, { thread_id: threadId, ...value }, { what, refusal: 404 });
  const thread = await ownedThread(ctx, threadId, request.user);
  if (!decision.matches(thread.metadata)) throw notFound(what);
  return thread;
}

/** `ownedRun` for `request`'s user, with the handler's `threads:<action>` (`read` for reads, `update` for a cancel). */
export async function authorizedRun(ctx: GatewayContext, request: FastifyRequest, action: string, threadId: string, runId: string): Promise<RunRecord> {
  await authorizedThread(ctx, request, action, threadId, { run_id: runId });
  return ownedRun(ctx, threadId, runId, request.user);
}

/** The run, if it belongs to that thread and the thread to `user`. */
export async function ownedRun(ctx: GatewayContext, threadId: string, runId: string, user: string): Promise<RunRecord> {
  await ownedThread(ctx, threadId, user);
  const run = await ctx.deps.store.getRun(runId);
  if (!run || run.threadId !== threadId) throw notFound(`run \`${runId}\` of thread \`${threadId}\``);
  return run;
}
