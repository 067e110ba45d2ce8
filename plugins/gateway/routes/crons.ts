import type { FastifyRequest } from "fastify";
import { randomUUID } from "node:crypto";
import { isKeelError } from "../../../kernel/errors.js";
import { parseCronSchedule } from "../../../kernel/runs/cron-schedule.js";
import type { CronPatch, CronRecord, CronSortField, CronStore } from "../../../kernel/runs/cron-types.js";
import type { MultitaskStrategy } from "../../../kernel/runs/types.js";
import { HttpError, notFound } from "../http-errors.js";
import { toRunRequest } from "../run-admission.js";
import { applyAssistant } from "../assistant-registry.js";
import type { RunCreateBody } from "../schemas.js";
import { ThreadParams } from "../schemas.js";
import { CRON_UNSUPPORTED_FIELDS, CronCountBody, CronCreateBody, CronParams, CronSearchBody, CronUpdateBody, type CRON_SORT_BY } from "../schemas-crons.js";
import { ownedThread, type GatewayApp, type GatewayContext } from "../context.js";
import { sendCronWebhooks } from "../cron-webhooks.js";

/** A thread cron's runs queue behind the thread's other runs unless the cron says otherwise. */
const THREAD_CRON_STRATEGY: MultitaskStrategy = "enqueue";

const SORT_FIELDS: Record<(typeof CRON_SORT_BY)[number], CronSortField> = {
  cron_id: "cronId",
  assistant_id: "assistantId",
  thread_id: "threadId",
  created_at: "createdAt",
  updated_at: "updatedAt",
  next_run_date: "nextRunAt",
  end_time: "endTime",
};

/**
 * Crons (LangGraph's `/runs/crons` API; docs/http.md, "Crons API"): each is
 * owned by its creator (another user's cron is a 404), and the run service's cron scheduler
 * fires it (kernel/runs/cron-scheduler.ts). Registered only when the host gives a cron store.
 */
export function registerCronRoutes(app: GatewayApp, ctx: GatewayContext, crons: CronStore): void {
  // This worker's fires of crons with a `webhook` are POSTed there once their run ended (cron-webhooks.ts).
  if (ctx.deps.cronFires) {
    const stop = sendCronWebhooks(ctx, ctx.deps.cronFires, app.log);
    app.addHook("onClose", async () => stop());
  }
  /** The caller's cron, if the auth handler allows `crons:<action>` on it (its filter on the cron's metadata); else a 404. */
  const owned = async (request: FastifyRequest, cronId: string, action: "update" | "delete"): Promise<CronRecord> => {
    const what = `cron \`${cronId}\``;
    const auth = await ctx.authorize(request, "crons", action, { cron_id: cronId }, { what });
    const cron = await crons.getCron(cronId);
    if (!cron || cron.owner !== request.user || !auth.matches(cron.metadata)) throw notFound(what);
    return cron;
  };

  const create = async (request: FastifyRequest, body: CronCreateBody, threadId: string | null): Promise<CronRecord> => {
    const user = request.user;
    refuseUnsupported(body);
    ctx.webhooks?.check(body.webhook);
    // The auth handler sees LangGraph's `crons:create` and may add metadata (stored on the cron).
    const { value } = await ctx.authorize(request, "crons", "create", { thread_id: threadId, assistant_id: body.assistant_id, schedule: body.schedule, metadata: { ...(body.metadata ?? {}) } });
    const metadata = value.metadata as Record<string, unknown>;
    if (Object.keys(metadata).length > 0) body = { ...body, metadata };
    if (threadId !== null && body.on_run_completed != null) {
      throw new HttpError(400, "KEEL_ERR_HTTP_INVALID_BODY", "invalid body at `/on_run_completed`: only a cron without a thread (`POST /runs/crons`) creates threads to keep or delete", "/on_run_completed");
    }
    const payload = payloadOf(body);
    // A system or the caller's own assistant (404 otherwise); its options are applied now, as a run's admission applies them.
    const applied = await applyAssistant(ctx, user, payload as never);
    const timezone = body.timezone ?? null;
    const endTime = endTimeOf(body.end_time);
    const now = ctx.now();
    const cron: CronRecord = {
      cronId: randomUUID(),
      owner: user,
      assistantId: applied.assistant_id,
      threadId,
      schedule: body.schedule,
      timezone,
      endTime,
      enabled: body.enabled ?? true,
      onRunCompleted: threadId === null ? (body.on_run_completed ?? "delete") : null,
      payload,
      request: toRunRequest(applied as unknown as RunCreateBody),
      strategy: body.multitask_strategy ?? THREAD_CRON_STRATEGY,
      metadata: body.metadata ?? {},
      nextRunAt: nextTick(body.schedule, timezone, endTime, Date.parse(now)),
      createdAt: now,
      updatedAt: now,
    };
    return crons.createCron(cron);
  };

  // A deleted thread takes its crons with it, as on LangGraph's server (the scheduler also drops a cron whose thread it finds gone).
  app.addHook("onResponse", async (request, reply) => {
    if (request.method !== "DELETE" || request.routeOptions.url !== "/threads/:tid" || (reply.statusCode !== 204 && reply.statusCode !== 202)) return;
    const threadId = (request.params as { tid: string }).tid;
    try {
      for (const cron of await crons.searchCrons({ owner: request.user, threadId, sortBy: "cronId", sortOrder: "asc", limit: 1000, offset: 0 })) await crons.deleteCron(cron.cronId);
    } catch (error) {
      request.log.error({ err: error }, "deleting the crons of a deleted thread failed; the scheduler drops them at their next tick");
    }
  });

  app.post("/runs/crons", { schema: { body: CronCreateBody } }, async (request) => cronToWire(await create(request, request.body, null)));

  app.post("/threads/:tid/runs/crons", { schema: { params: ThreadParams, body: CronCreateBody } }, async (request) => {
    const thread = await ownedThread(ctx, request.params.tid, request.user);
    return cronToWire(await create(request, request.body, thread.threadId));
  });

  app.patch("/runs/crons/:cron_id", { schema: { params: CronParams, body: CronUpdateBody } }, async (request) => {
    const cron = await owned(request, request.params.cron_id, "update");
    const body = request.body ?? {};
    refuseUnsupported(body);
    ctx.webhooks?.check(body.webhook);
    if (cron.threadId !== null && body.on_run_completed != null) {
      throw new HttpError(400, "KEEL_ERR_HTTP_INVALID_BODY", "invalid body at `/on_run_completed`: this cron runs on its thread; only a cron without a thread keeps or deletes threads", "/on_run_completed");
    }
    const patch: CronPatch = {};
    if (body.schedule != null) patch.schedule = body.schedule;
    if (body.timezone !== undefined) patch.timezone = body.timezone;
    if (body.end_time !== undefined) patch.endTime = endTimeOf(body.end_time);
    if (body.enabled != null) patch.enabled = body.enabled;
    if (body.on_run_completed != null) patch.onRunCompleted = body.on_run_completed;
    // A new schedule, zone, end or enabling starts from now; otherwise the next tick stays (the scheduler's claim compares it).
    if (patch.schedule !== undefined || patch.timezone !== undefined || patch.endTime !== undefined || (patch.enabled === true && !cron.enabled)) {
      patch.nextRunAt = nextTick(patch.schedule ?? cron.schedule, patch.timezone !== undefined ? patch.timezone : cron.timezone, patch.endTime !== undefined ? patch.endTime : cron.endTime, Date.parse(ctx.now()));
    }
    const runFields = payloadOf(body);
    delete runFields.assistant_id;
    if (Object.keys(runFields).length > 0 || body.webhook === null) {
      const metadata = body.metadata ? { ...cron.metadata, ...body.metadata } : cron.metadata;
      const payload: Record<string, unknown> = { ...cron.payload, ...runFields, metadata };
      // `webhook: null` stops the webhook.
      if (body.webhook === null) delete payload.webhook;
      patch.payload = payload;
      patch.metadata = metadata;
      patch.request = toRunRequest((await applyAssistant(ctx, request.user, { ...payload, assistant_id: cron.assistantId } as never)) as unknown as RunCreateBody);
    }
    const updated = await crons.updateCron(cron.cronId, patch, ctx.now());
    if (!updated) throw notFound(`cron \`${cron.cronId}\``);
    return cronToWire(updated);
  });

  app.delete("/runs/crons/:cron_id", { schema: { params: CronParams } }, async (request, reply) => {
    const cron = await owned(request, request.params.cron_id, "delete");
    await crons.deleteCron(cron.cronId);
    return reply.code(204).send();
  });

  app.post("/runs/crons/search", { schema: { body: CronSearchBody } }, async (request) => {
    const query = request.body ?? {};
    const auth = await ctx.authorize(request, "crons", "search", { assistant_id: query.assistant_id ?? null, thread_id: query.thread_id ?? null, metadata: query.metadata ?? {}, limit: query.limit ?? 10, offset: query.offset ?? 0 });
    const found = await crons.searchCrons({
      owner: request.user,
      ...(query.assistant_id != null ? { assistantId: query.assistant_id } : {}),
      ...(query.thread_id != null ? { threadId: query.thread_id } : {}),
      ...(query.enabled != null ? { enabled: query.enabled } : {}),
      ...(query.metadata ? { metadata: query.metadata } : {}),
      sortBy: SORT_FIELDS[query.sort_by ?? "created_at"],
      sortOrder: query.sort_order ?? "desc",
      limit: query.limit ?? 10,
      offset: query.offset ?? 0,
    });
    const now = ctx.now();
    // A handler's filter is checked on the page (so a filtered page may come back short, as threads search).
    return found.filter((cron) => auth.matches(cron.metadata)).map((cron) => selectFields(cronToWire(cron), query.select ?? null, now));
  });

  app.post("/runs/crons/count", { schema: { body: CronCountBody } }, async (request) => {
    const query = request.body ?? {};
    const auth = await ctx.authorize(request, "crons", "search", { assistant_id: query.assistant_id ?? null, thread_id: query.thread_id ?? null, metadata: query.metadata ?? {} });
    const filter = {
      owner: request.user,
      ...(query.assistant_id != null ? { assistantId: query.assistant_id } : {}),
      ...(query.thread_id != null ? { threadId: query.thread_id } : {}),
      ...(query.metadata ? { metadata: query.metadata } : {}),
    };
    if (auth.filters === undefined) return crons.countCrons(filter);
    const all = await crons.searchCrons({ ...filter, sortBy: "cronId", sortOrder: "asc", limit: Number.MAX_SAFE_INTEGER, offset: 0 });
    return all.filter((cron) => auth.matches(cron.metadata)).length;
  });
}

/** LangGraph's Cron, snake_case (`@langchain/langgraph-sdk`'s `Cron` type). */
export function cronToWire(cron: CronRecord) {
  return {
    cron_id: cron.cronId,
    assistant_id: cron.assistantId,
    thread_id: cron.threadId,
    on_run_completed: cron.onRunCompleted,
    end_time: cron.endTime,
    schedule: cron.schedule,
    timezone: cron.timezone,
    created_at: cron.createdAt,
    updated_at: cron.updatedAt,
    payload: cron.payload,
    user_id: cron.owner,
    next_run_date: cron.nextRunAt,
    metadata: cron.metadata,
    enabled: cron.enabled,
  };
}

type CronWire = ReturnType<typeof cronToWire>;

/** `select`: only the named fields; `now` is the server's time of the answer. */
function selectFields(wire: CronWire, select: readonly string[] | null, now: string): Record<string, unknown> {
  if (!select) return wire;
  const all: Record<string, unknown> = { ...wire, now };
  return Object.fromEntries(select.map((field) => [field, all[field]]));
}

/** The run-creation fields of a body, as sent (the cron's `payload`). */
function payloadOf(body: Record<string, unknown>): Record<string, unknown> {
  const payload: Record<string, unknown> = {};
  for (const field of ["assistant_id", "input", "config", "context", "metadata", "stream_mode", "stream_resumable", "multitask_strategy", "interrupt_before", "interrupt_after", "webhook"] as const) {
    if (body[field] !== undefined && body[field] !== null) payload[field] = body[field];
  }
  return payload;
}

/** A field the SDK may send that Keel cannot honour is a 400 naming it (an empty list or `false` asks for nothing). */
function refuseUnsupported(body: Record<string, unknown>): void {
  for (const field of CRON_UNSUPPORTED_FIELDS) {
    const value = body[field];
    if (value === undefined || value === null || value === false || (Array.isArray(value) && value.length === 0)) continue;
    throw new HttpError(400, "KEEL_ERR_HTTP_INVALID_BODY", `invalid body at \`/${field}\`: crons on this server do not support \`${field}\` (leave it out)`, `/${field}`);
  }
}

function endTimeOf(raw: string | null | undefined): string | null {
  if (raw == null) return null;
  const ms = Date.parse(raw);
  if (Number.isNaN(ms)) throw new HttpError(400, "KEEL_ERR_HTTP_INVALID_BODY", `invalid body at \`/end_time\`: \`${raw}\` is not an ISO-8601 date-time`, "/end_time");
  return new Date(ms).toISOString();
}

/** The first tick after `nowMs` (null past `endTime`); a bad schedule or zone is a 400 naming the field. */
function nextTick(schedule: string, timezone: string | null, endTime: string | null, nowMs: number): string | null {
  try {
    return parseCronSchedule(schedule, timezone).nextAfter(nowMs, endTime);
  } catch (error) {
    if (isKeelError(error) && error.code === "KEEL_ERR_CRON_SCHEDULE_INVALID") throw new HttpError(400, error.code, error.message, error.pointer);
    throw error;
  }
}
