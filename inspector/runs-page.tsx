import { useEffect, useMemo, useState } from "preact/hooks";
import { ApiError, AuthRequired, enc, getJson, postJson, readSse } from "./api.js";
import { activityText } from "./activity.js";
import { elapsed, runHref, short, tokens } from "./format.js";
import type { Info, Run, RunSummary, Thread } from "./types.js";
import { stopReasonName } from "./types.js";

const FINAL = new Set(["success", "error", "timeout", "interrupted"]);
const STATUSES = ["pending", "running", "success", "error", "timeout", "interrupted"];
const DEMO_INPUT = "Add a small tide helper (tides.mjs) with a test, and make sure the test passes.";

type FeedState = "connecting" | "live" | "fallback" | "reconnecting";

/**
 * The caller's runs, live: the run-status feed's `snapshot` then one `run` event per change.
 * A server without the feed (404) is read once through the threads and runs routes, and each
 * active run is followed through its own event stream until its `end`.
 */
function useRuns(onAuth: (error: AuthRequired) => void): { runs: RunSummary[]; state: FeedState; error: string | null } {
  const [byId, setById] = useState<Map<string, RunSummary>>(new Map());
  const [state, setState] = useState<FeedState>("connecting");
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const controller = new AbortController();
    const upsert = (run: RunSummary) =>
      setById((old) => {
        const next = new Map(old);
        next.set(run.run_id, { ...old.get(run.run_id), ...run });
        return next;
      });
    let delay = 500;
    const connect = async (): Promise<void> => {
      while (!controller.signal.aborted) {
        try {
          await readSse(
            "/keel/feed?limit=200",
            (event) => {
              if (event.event === "snapshot") {
                const runs = (event.data as { runs: RunSummary[] }).runs;
                setById(new Map(runs.map((r) => [r.run_id, r])));
                setState("live");
                setError(null);
                delay = 500;
              } else if (event.event === "run") upsert(event.data as RunSummary);
            },
            controller.signal,
          );
        } catch (caught) {
          if (controller.signal.aborted) return;
          if (caught instanceof AuthRequired) return onAuth(caught);
          if (caught instanceof ApiError && caught.status === 404) return fallback(controller.signal, setById, upsert, setState, setError, onAuth);
          setError(caught instanceof Error ? caught.message : String(caught));
        }
        // The feed does not end: a closed stream is a lost connection. Reconnect; the new snapshot replaces the list.
        setState("reconnecting");
        await new Promise((resolve) => setTimeout(resolve, delay));
        delay = Math.min(delay * 2, 10_000);
      }
    };
    void connect();
    return () => controller.abort();
  }, []);
  const runs = useMemo(() => [...byId.values()].sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0)), [byId]);
  return { runs, state, error };
}

export function summaryOf(run: Run, user: string | null = null): RunSummary {
  const final = FINAL.has(run.status);
  const usage = run.outcome?.usage;
  return {
    thread_id: run.thread_id,
    run_id: run.run_id,
    assistant_id: run.assistant_id,
    user,
    status: run.status,
    outcome: run.outcome ?? null,
    stop_reasons: (run.outcome?.stopReasons ?? []).map(stopReasonName),
    turns: 0,
    tokens: { input: usage?.inputTokens ?? 0, output: usage?.outputTokens ?? 0, total: usage?.totalTokens ?? 0 },
    created_at: run.created_at,
    updated_at: run.updated_at,
    ended_at: final ? run.updated_at : null,
    activity: { kind: final ? "finished" : run.status === "pending" ? "queued" : "model" },
  };
}

async function fallback(
  signal: AbortSignal,
  setById: (update: (old: Map<string, RunSummary>) => Map<string, RunSummary>) => void,
  upsert: (run: RunSummary) => void,
  setState: (state: FeedState) => void,
  setError: (error: string | null) => void,
  onAuth: (error: AuthRequired) => void,
): Promise<void> {
  setState("fallback");
  try {
    const threads = await postJson<Thread[]>("/threads/search", { limit: 50 });
    const lists = await Promise.all(threads.map((t) => getJson<Run[]>(`/threads/${enc(t.thread_id)}/runs?limit=10`)));
    const runs = lists.flat().map((r) => summaryOf(r));
    setById(() => new Map(runs.map((r) => [r.run_id, r])));
    for (const run of runs) if (!FINAL.has(run.status)) void follow(run, signal, upsert);
  } catch (caught) {
    if (caught instanceof AuthRequired) return onAuth(caught);
    setError(caught instanceof Error ? caught.message : String(caught));
  }
}

/** Follow one run through its event stream (the fallback without the feed). */
export async function follow(run: RunSummary, signal: AbortSignal, upsert: (run: RunSummary) => void): Promise<void> {
  const base = `/threads/${enc(run.thread_id)}/runs/${enc(run.run_id)}`;
  let turns = run.turns;
  try {
    await readSse(
      `${base}/stream`,
      (event) => {
        if (event.event === "updates") {
          const update = event.data as Record<string, { agent?: string; turn?: number; route?: string }>;
          for (const [node, body] of Object.entries(update)) {
            if (body?.agent === "lead" && typeof body.turn === "number") turns = Math.max(turns, body.turn);
            upsert({ ...run, status: "running", turns, activity: node === "agent" && body?.route === "tools" ? { kind: "tool" } : { kind: "model" } });
          }
        }
      },
      signal,
    );
    upsert({ ...summaryOf(await getJson<Run>(base)), turns });
  } catch {
    // the list keeps what it had
  }
}

export function RunsPage(props: { info: Info | null; onAuth: (error: AuthRequired) => void }) {
  const { runs, state, error } = useRuns(props.onAuth);
  const [now, setNow] = useState(Date.now());
  const [status, setStatus] = useState("");
  const [assistant, setAssistant] = useState("");
  const [stopReason, setStopReason] = useState("");
  const [started, setStarted] = useState<string | null>(null);
  const [startError, setStartError] = useState<string | null>(null);
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  const assistants = [...new Set(runs.map((r) => r.assistant_id))].sort();
  const stopReasons = [...new Set(runs.flatMap((r) => r.stop_reasons))].sort();
  const shown = runs.filter((r) => (!status || r.status === status) && (!assistant || r.assistant_id === assistant) && (!stopReason || r.stop_reasons.includes(stopReason)));
  const threads = new Map<string, RunSummary[]>();
  for (const run of shown) threads.set(run.thread_id, [...(threads.get(run.thread_id) ?? []), run]);

  const startDemo = async () => {
    setStartError(null);
    try {
      const thread = await postJson<Thread>("/threads", { metadata: { started_by: "inspector" } });
      const run = await postJson<Run>(`/threads/${enc(thread.thread_id)}/runs`, { assistant_id: props.info?.stacks[0] ?? "lead", input: DEMO_INPUT });
      setStarted(runHref(run.thread_id, run.run_id));
    } catch (caught) {
      if (caught instanceof AuthRequired) return props.onAuth(caught);
      setStartError(caught instanceof Error ? caught.message : String(caught));
    }
  };

  return (
    <section>
      <div class="toolbar">
        <h2>Runs</h2>
        <span class={`feed feed-${state}`} data-testid="feed-state">
          {state === "live" ? "live" : state === "fallback" ? "no run-status feed: following active runs" : state}
        </span>
        {props.info?.model === "demo" && (
          <button type="button" data-testid="start-demo" onClick={startDemo}>
            Start a demo run
          </button>
        )}
        {started && (
          <a href={started} data-testid="started-run">
            open the demo run
          </a>
        )}
        {startError && <span class="error">{startError}</span>}
      </div>
      {error && <p class="error">{error}</p>}
      <div class="filters">
        <label>
          status{" "}
          <select data-testid="filter-status" value={status} onChange={(e) => setStatus((e.target as HTMLSelectElement).value)}>
            <option value="">any</option>
            {STATUSES.map((s) => (
              <option value={s}>{s}</option>
            ))}
          </select>
        </label>
        <label>
          assistant{" "}
          <select data-testid="filter-assistant" value={assistant} onChange={(e) => setAssistant((e.target as HTMLSelectElement).value)}>
            <option value="">any</option>
            {assistants.map((a) => (
              <option value={a}>{a}</option>
            ))}
          </select>
        </label>
        <label>
          stop reason{" "}
          <select data-testid="filter-stop-reason" value={stopReason} onChange={(e) => setStopReason((e.target as HTMLSelectElement).value)}>
            <option value="">any</option>
            {stopReasons.map((s) => (
              <option value={s}>{s}</option>
            ))}
          </select>
        </label>
      </div>
      {shown.length === 0 ? (
        <p data-testid="no-runs">No runs{runs.length > 0 ? " match the filters" : " yet"}.</p>
      ) : (
        <table class="runs" data-testid="runs">
          <thead>
            <tr>
              <th>created</th>
              <th>run</th>
              <th>assistant</th>
              <th>user</th>
              <th>status</th>
              <th>outcome</th>
              <th>turns</th>
              <th>tokens</th>
              <th>elapsed</th>
              <th>now</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((run) => (
              <tr data-run-id={run.run_id} data-status={run.status} class={`status-${run.status}`}>
                <td>{run.created_at.replace("T", " ").slice(0, 19)}</td>
                <td>
                  <a href={runHref(run.thread_id, run.run_id)}>{short(run.run_id)}</a>
                </td>
                <td>{run.assistant_id}</td>
                <td>{run.user ?? ""}</td>
                <td class="status" data-testid="run-status">{run.status}</td>
                <td>
                  {run.outcome ? run.outcome.status : ""}
                  {run.stop_reasons.length > 0 && <span class="stop-reasons"> ({run.stop_reasons.join(", ")})</span>}
                </td>
                <td>{run.turns}</td>
                <td title={`${run.tokens.input} in / ${run.tokens.output} out`}>{tokens(run.tokens.total)}</td>
                <td>{elapsed(run.created_at, run.ended_at, now)}</td>
                <td class="activity" data-testid="run-activity">{activityText(run.activity, now)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h2>Threads</h2>
      <ul class="threads" data-testid="threads">
        {[...threads.entries()].map(([threadId, list]) => (
          <li data-thread-id={threadId}>
            <code>{short(threadId)}</code>{" "}
            {list.map((run) => (
              <a class={`chip status-${run.status}`} href={runHref(run.thread_id, run.run_id)}>
                {short(run.run_id)} {run.status}
              </a>
            ))}
          </li>
        ))}
      </ul>
    </section>
  );
}
