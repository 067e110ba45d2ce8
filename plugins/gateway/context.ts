import type { FastifyBaseLogger, FastifyInstance, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from "fastify";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { RunRecord, ThreadRecord } from "../../kernel/runs/types.js";
import { notFound } from "./http-errors.js";
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
}

/** The thread, if it exists and `user` created it; another user's thread is a 404, never a 403. */
export async function ownedThread(ctx: GatewayContext, threadId: string, user: string): Promise<ThreadRecord> {
  const thread = await ctx.deps.store.getThread(threadId);
  if (!thread || thread.owner !== user) throw notFound(`thread \`${threadId}\``);
  return thread;
}

/** The run, if it belongs to that thread and the thread to `user`. */
export async function ownedRun(ctx: GatewayContext, threadId: string, runId: string, user: string): Promise<RunRecord> {
  await ownedThread(ctx, threadId, user);
  const run = await ctx.deps.store.getRun(runId);
  if (!run || run.threadId !== threadId) throw notFound(`run \`${runId}\` of thread \`${threadId}\``);
  return run;
}
