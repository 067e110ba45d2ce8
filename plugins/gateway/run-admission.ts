import type { FastifyRequest } from "fastify";
import type { RunRecord, RunRequest } from "../../kernel/runs/types.js";
import { HttpError, notFound } from "./http-errors.js";
import type { RunCreateBody } from "./schemas.js";
import { authorizedThread, type GatewayContext } from "./context.js";

/**
 * The body of a run-creation request in Keel's terms. Where a caller may ask for a turn
 * limit (`context.max_turns` or `config.configurable.max_turns`), the run service
 * clamps it to the server maximum; hygiene (`__` keys, receipt metadata) is the run
 * service's too, so every entry point gets it.
 */
export function toRunRequest(body: RunCreateBody): RunRequest {
  const streamMode = body.stream_mode == null ? undefined : Array.isArray(body.stream_mode) ? [...body.stream_mode] : [body.stream_mode];
  const maxTurns = requestedMaxTurns(body);
  return {
    assistantId: body.assistant_id,
    input: body.input ?? null,
    ...(body.config ? { config: body.config } : {}),
    ...(body.context ? { context: body.context } : {}),
    ...(body.metadata ? { metadata: body.metadata } : {}),
    ...(streamMode ? { streamMode } : {}),
    onDisconnect: body.on_disconnect ?? "cancel",
    ...(maxTurns !== undefined ? { maxTurns } : {}),
  };
}

function requestedMaxTurns(body: RunCreateBody): number | undefined {
  const configurable = body.config?.configurable as Record<string, unknown> | undefined;
  const candidates: [unknown, string][] = [
    [body.context?.max_turns, "/context/max_turns"],
    [configurable?.max_turns, "/config/configurable/max_turns"],
  ];
  for (const [value, pointer] of candidates) {
    if (value === undefined || value === null) continue;
    if (typeof value !== "number" || !Number.isInteger(value) || value < 1) {
      throw new HttpError(400, "KEEL_ERR_HTTP_INVALID_BODY", `invalid body at \`${pointer}\`: must be an integer >= 1`, pointer);
    }
    return value;
  }
  return undefined;
}

/**
 * Check ownership and the assistant, then hand the run to the run service, which
 * persists it before anyone can see it (and answers 409/429/503 as coded errors).
 */
export async function admitRun(ctx: GatewayContext, request: FastifyRequest, threadId: string, body: RunCreateBody): Promise<RunRecord> {
  // The auth handler sees the run as LangGraph's `threads:create_run` and may add metadata.
  const value = { assistant_id: body.assistant_id, metadata: { ...(body.metadata ?? {}) }, multitask_strategy: body.multitask_strategy ?? "reject", kwargs: { input: body.input ?? null, config: body.config ?? {}, context: body.context ?? {} } };
  await authorizedThread(ctx, request, "create_run", threadId, value);
  if (!ctx.stacks.includes(body.assistant_id)) throw notFound(`assistant \`${body.assistant_id}\``);
  if (Object.keys(value.metadata).length > 0) body = { ...body, metadata: value.metadata };
  // The run service checks ownership again and owns the per-user limit, request hygiene
  // and the multitask strategy, so every entry point gets them.
  const run = await ctx.deps.runs.createOrReject(threadId, toRunRequest(body), { user: request.user, strategy: body.multitask_strategy ?? "reject" });
  // A run is activity: the thread's expiry moves (thread TTL).
  await ctx.deps.retention?.touch(threadId);
  return run;
}

export function runPath(run: Pick<RunRecord, "threadId" | "runId">): string {
  return `/threads/${encodeURIComponent(run.threadId)}/runs/${encodeURIComponent(run.runId)}`;
}
