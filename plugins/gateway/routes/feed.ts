import Type, { type Static } from "typebox";
import type { FastifyRequest } from "fastify";
import { FEED_LOG_ID, FEED_RUN_EVENT, isRunSummary, latestSummaries, summaryOfRecord, type RunSummary } from "../../../kernel/runs/run-feed.js";
import type { RunRecord, RunRecordStatus, RunStore, StreamBridge, StreamEvent } from "../../../kernel/runs/types.js";
import type { GatewayApp, GatewayContext } from "../context.js";
import { isVisibleRun } from "../run-visibility.js";
import { openSse, type SseSession } from "../sse.js";

const RUN_STATUS = Type.Enum(["pending", "running", "success", "error", "timeout", "interrupted"]);

export const FeedQuery = Type.Object({
  status: Type.Optional(Type.Union([RUN_STATUS, Type.Array(RUN_STATUS, { maxItems: 6 })])),
  assistant_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  thread_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200 })),
});
export type FeedQuery = Static<typeof FeedQuery>;

/** Snapshot size without `limit`. */
export const FEED_DEFAULT_LIMIT = 50;
/** How many of the feed log's newest summaries a snapshot overlays on the records (turns, tokens, activity). */
const OVERLAY_EVENTS = 1_000;
/** Threads a store without `recentRuns` is scanned over for a snapshot. */
const SCANNED_THREADS = 200;
/** Pause before following the feed again after the bridge failed. */
const RESUBSCRIBE_MS = 1_000;

interface FeedFilter {
  user: string;
  statuses?: readonly RunRecordStatus[];
  assistantId?: string;
  threadId?: string;
  limit: number;
  /** The auth handler's thread filter, if it gave one: whether the run's thread matches it. */
  threadVisible?: (threadId: string) => Promise<boolean>;
}

/**
 * `GET /keel/feed` (docs/http.md, "Run-status feed"): the caller's runs as Server-Sent Events —
 * a `snapshot` of the recent ones, then a `run` event for every change of one of them,
 * from any worker (the summaries come through the stream bridge's feed log). It never
 * ends; a client that reconnects gets a new `snapshot` (no `Last-Event-ID` replay).
 */
export function registerFeedRoute(app: GatewayApp, ctx: GatewayContext): void {
  app.get("/keel/feed", { schema: { querystring: FeedQuery } }, async (request, reply) => {
    const filter = await feedFilter(ctx, request, request.query);
    const { store, bridge } = ctx.deps;
    // The cursor first, then the records: a change made in between is replayed, never missed.
    const recent = await latestFeedEvents(bridge);
    let cursor = recent.at(-1)?.id;
    const snapshot = await snapshotOf(store, filter, latestSummaries(recent));
    const session = openSse(reply, {}, ctx.heartbeatMs);
    try {
      if (!(await session.send({ id: "", event: "snapshot", data: { runs: snapshot } }))) return;
      while (!session.signal.aborted) {
        try {
          const followed = await followFeed(session, bridge, cursor, filter);
          cursor = followed.cursor;
          if (followed.gap) {
            // Summaries were lost (the feed log's retention): every run of a new snapshot, as `run` events.
            const again = await snapshotOf(store, filter, latestSummaries(await latestFeedEvents(bridge)));
            for (const summary of again) if (!(await session.send({ id: "", event: FEED_RUN_EVENT, data: summary }))) return;
          } else if (!session.signal.aborted) await pause(RESUBSCRIBE_MS, session.signal);
        } catch (error) {
          if (session.signal.aborted) return;
          request.log.warn({ err: error }, "the run-status feed lost its bridge subscription; following it again");
          await pause(RESUBSCRIBE_MS, session.signal);
        }
      }
    } finally {
      session.close();
    }
  });
}

async function feedFilter(ctx: GatewayContext, request: FastifyRequest, query: FeedQuery): Promise<FeedFilter> {
  const limit = query.limit ?? FEED_DEFAULT_LIMIT;
  const statuses = query.status === undefined ? undefined : ((Array.isArray(query.status) ? query.status : [query.status]) as RunRecordStatus[]);
  // Listing across threads is LangGraph's `threads:search`; its metadata filter hides the runs of threads that do not match.
  const decision = await ctx.authorize(request, "threads", "search", { metadata: {}, limit, offset: 0 });
  const filter: FeedFilter = {
    user: request.user,
    limit,
    ...(statuses ? { statuses } : {}),
    ...(query.assistant_id !== undefined ? { assistantId: query.assistant_id } : {}),
    ...(query.thread_id !== undefined ? { threadId: query.thread_id } : {}),
  };
  if (decision.filters) {
    // One read per thread and connection, not per event.
    const seen = new Map<string, Promise<boolean>>();
    filter.threadVisible = (threadId) => {
      let visible = seen.get(threadId);
      if (!visible) {
        visible = ctx.deps.store.getThread(threadId).then((thread) => thread !== null && thread.owner === request.user && decision.matches(thread.metadata));
        seen.set(threadId, visible);
      }
      return visible;
    };
  }
  return filter;
}

function matchesFilter(summary: Pick<RunSummary, "user" | "status" | "assistant_id" | "thread_id">, filter: FeedFilter): boolean {
  if (summary.user !== filter.user) return false;
  if (filter.statuses && !filter.statuses.includes(summary.status)) return false;
  if (filter.assistantId !== undefined && summary.assistant_id !== filter.assistantId) return false;
  return filter.threadId === undefined || summary.thread_id === filter.threadId;
}

async function latestFeedEvents(bridge: StreamBridge): Promise<StreamEvent[]> {
  if (bridge.readLatest) return bridge.readLatest(FEED_LOG_ID, OVERLAY_EVENTS);
  return (await bridge.read(FEED_LOG_ID)).slice(-OVERLAY_EVENTS);
}

/** The caller's recent runs from the store (one query when it has `recentRuns`), newest first, with what the feed log knows of each. */
async function snapshotOf(store: RunStore, filter: FeedFilter, known: ReadonlyMap<string, RunSummary>): Promise<RunSummary[]> {
  const records = (await recentRecords(store, filter)).filter(isVisibleRun);
  const visible: RunRecord[] = [];
  for (const run of records) if (!filter.threadVisible || (await filter.threadVisible(run.threadId))) visible.push(run);
  return visible.map((run) => {
    const last = known.get(run.runId);
    // What the log says about turns, tokens and activity holds for the record's state, or for a run that ended since.
    const usable = last && (last.status === run.status || (run.status !== "pending" && run.status !== "running"));
    return summaryOfRecord(run, usable ? last : undefined);
  });
}

async function recentRecords(store: RunStore, filter: FeedFilter): Promise<RunRecord[]> {
  const query = {
    user: filter.user,
    limit: filter.limit,
    ...(filter.statuses ? { statuses: filter.statuses } : {}),
    ...(filter.assistantId !== undefined ? { assistantId: filter.assistantId } : {}),
    ...(filter.threadId !== undefined ? { threadId: filter.threadId } : {}),
  };
  if (store.recentRuns) return store.recentRuns(query);
  const threads = filter.threadId !== undefined ? [await store.getThread(filter.threadId)].filter((t) => t !== null && t.owner === filter.user) : await store.searchThreads({ owner: filter.user, limit: SCANNED_THREADS, offset: 0, sortBy: "updated_at" });
  const runs: RunRecord[] = [];
  for (const thread of threads) runs.push(...(await store.listRuns(thread!.threadId, { limit: filter.limit, offset: 0 })));
  return runs
    .filter((run) => matchesFilter(summaryOfRecord(run), filter))
    .sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0))
    .slice(0, filter.limit);
}

/**
 * Follow the feed log after `cursor`, sending the caller's summaries, until the
 * subscription ends: the cursor to go on from, and whether it ended with a `gap` (its id
 * is the cursor: the next subscription resumes at the first retained summary). Throws what the bridge threw.
 */
async function followFeed(session: SseSession, bridge: StreamBridge, cursor: string | undefined, filter: FeedFilter): Promise<{ cursor: string | undefined; gap: boolean }> {
  for await (const event of bridge.subscribe(FEED_LOG_ID, { ...(cursor ? { lastEventId: cursor } : {}), signal: session.signal })) {
    if (event.event === "gap") return { cursor: event.id, gap: true };
    cursor = event.id;
    if (event.event !== FEED_RUN_EVENT || !isRunSummary(event.data) || !matchesFilter(event.data, filter)) continue;
    if (filter.threadVisible && !(await filter.threadVisible(event.data.thread_id))) continue;
    if (!(await session.send({ id: "", event: FEED_RUN_EVENT, data: event.data }))) break;
  }
  return { cursor, gap: false };
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    timer.unref();
    signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
  });
}
