import { useEffect, useRef, useState } from "preact/hooks";
import { ApiError, AuthRequired, enc, getJson, postJson, readSse, type SseEvent } from "./api.js";
import { buildTimeline, changedChannels, checkpointDetail } from "./timeline.js";
import { DelegationTree, FilesWritten, ModelRequests, TokenChart, type BudgetLines } from "./report-views.js";
import { runHref, short, time } from "./format.js";
import type { Checkpoint, JournalEntry, Run, RunReport, Thread } from "./types.js";
import { stopReasonName } from "./types.js";
import { Approvals, pendingRequests } from "./approvals.js";

const FINAL = new Set(["success", "error", "timeout", "interrupted"]);

interface Loaded {
  run: Run;
  thread: Thread;
  journal: JournalEntry[];
  checkpoints: Checkpoint[];
  report: RunReport | null;
  budget: BudgetLines | null;
}

async function optional<T>(promise: Promise<T>): Promise<T | null> {
  try {
    return await promise;
  } catch (error) {
    if (error instanceof ApiError && (error.status === 404 || error.status === 501)) return null;
    throw error;
  }
}

/** The run's checkpoints, oldest first: those written between its start and its end (the thread's history holds every run's). */
function runCheckpoints(history: readonly Checkpoint[], run: Run, final: boolean): Checkpoint[] {
  const from = Date.parse(run.created_at);
  const to = final ? Date.parse(run.updated_at) : Infinity;
  return history.filter((c) => c.created_at && Date.parse(c.created_at) >= from && Date.parse(c.created_at) <= to).reverse();
}

type StoredRequest = RunReport["modelRequests"][number] & { base?: number; parts?: Array<RunReport["messages"][number] | { copy: [number, number] }> };

/** run-report@2 stores a model request as a delta against an earlier one (docs/run-report.md): expand each to its whole message list. */
export function expandModelRequests(requests: readonly StoredRequest[]): RunReport["modelRequests"] {
  const expanded: RunReport["modelRequests"] = [];
  requests.forEach((request, index) => {
    if (Array.isArray(request.messages) || !request.parts) {
      expanded.push({ agent: request.agent, turn: request.turn, messages: request.messages ?? [] });
      return;
    }
    const base = request.base !== undefined && request.base < index ? expanded[request.base]!.messages : [];
    const messages = request.parts.flatMap((part) => ("copy" in part ? base.slice(part.copy[0], part.copy[0] + part.copy[1]) : [part]));
    expanded.push({ agent: request.agent, turn: request.turn, messages });
  });
  return expanded;
}

/** What the timeline needs first: the run, its thread and its journal (the page shows them before the rest arrives). */
async function loadFirst(threadId: string, runId: string): Promise<Loaded> {
  const base = `/threads/${enc(threadId)}/runs/${enc(runId)}`;
  const [run, thread, journal] = await Promise.all([getJson<Run>(base), getJson<Thread>(`/threads/${enc(threadId)}`), getJson<JournalEntry[]>(`${base}/journal`)]);
  return { run, thread, journal, checkpoints: [], report: null, budget: null };
}

/** The rest: the thread's checkpoints of this run, its report (once it ended) and the token-budget lines. */
async function loadRest(first: Loaded): Promise<Loaded> {
  const { run } = first;
  const final = FINAL.has(run.status);
  const [history, report, schemas] = await Promise.all([
    optional(postJson<Checkpoint[]>(`/threads/${enc(run.thread_id)}/history`, { limit: 1000 })),
    final ? optional(getJson<RunReport>(`/threads/${enc(run.thread_id)}/runs/${enc(run.run_id)}/report`)) : Promise.resolve(null),
    optional(getJson<{ config_schema?: { properties?: { plugins?: { properties?: Record<string, { default?: Record<string, unknown> }> } } } }>(`/assistants/${enc(run.assistant_id)}/schemas`)),
  ]);
  const budgetDefaults = schemas?.config_schema?.properties?.plugins?.properties?.["token-budget"]?.default;
  const budget =
    budgetDefaults && budgetDefaults.enabled !== false && typeof budgetDefaults.limit === "number"
      ? { limit: budgetDefaults.limit, warnAt: typeof budgetDefaults.warnAt === "number" ? budgetDefaults.warnAt : 0.7, returnReserve: typeof budgetDefaults.returnReserve === "number" ? budgetDefaults.returnReserve : 0.15 }
      : null;
  if (report) report.modelRequests = expandModelRequests(report.modelRequests ?? []);
  return { ...first, checkpoints: history ? runCheckpoints(history, run, final) : [], report, budget };
}

export function RunPage(props: { threadId: string; runId: string; onAuth: (error: AuthRequired) => void }) {
  const { threadId, runId } = props;
  const [data, setData] = useState<Loaded | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [events, setEvents] = useState<Array<{ event: SseEvent; receivedMs: number }>>([]);
  const [tab, setTab] = useState<"timeline" | "replay" | "delegations" | "requests" | "tokens" | "files">("timeline");
  const reloadTimer = useRef<number | undefined>(undefined);

  // A load saw the run ended: nothing durable changes after that (its replayed stream's `end` reloads nothing).
  const endedAtLoad = useRef(false);
  const loading = useRef<Promise<void>>(Promise.resolve());

  const load = async (onFirst?: () => void) => {
    try {
      const first = await loadFirst(threadId, runId);
      endedAtLoad.current ||= FINAL.has(first.run.status);
      // The first load shows the timeline from the journal at once; a later one keeps what is shown until the rest is in.
      setData((old) => old ?? first);
      onFirst?.();
      setData(await loadRest(first));
      setError(null);
    } catch (caught) {
      if (caught instanceof AuthRequired) return props.onAuth(caught);
      setError(caught instanceof Error ? caught.message : String(caught));
    }
  };
  const reload = (onFirst?: () => void) => (loading.current = load(onFirst));
  /** After the load in flight: reload, unless a load already saw the run ended. */
  const reloadUnlessEnded = () => void loading.current.then(() => (endedAtLoad.current ? undefined : reload()));
  useEffect(() => {
    setData(null);
    setEvents([]);
    endedAtLoad.current = false;
    const controller = new AbortController();
    // Stream events arrive in bursts (a finished run's whole stream at once): shown at most every 250 ms.
    let buffered: Array<{ event: SseEvent; receivedMs: number }> = [];
    let flushTimer: number | undefined;
    const flush = () => {
      flushTimer = undefined;
      const arrived = buffered;
      buffered = [];
      setEvents((old) => [...old, ...arrived]);
    };
    let followed = false;
    // The run's stream from its first event (a replay), then live until `end`; read once the journal is shown.
    const follow = () => {
      if (followed) return;
      followed = true;
      void readSse(
        `/threads/${enc(threadId)}/runs/${enc(runId)}/stream`,
        (event) => {
          buffered.push({ event, receivedMs: Date.now() });
          flushTimer ??= window.setTimeout(flush, 250);
          if (event.event === "end") reloadUnlessEnded();
          else if (event.event === "updates") {
            // A step finished: its journal entries and checkpoint are durable now. One reload per burst.
            window.clearTimeout(reloadTimer.current);
            reloadTimer.current = window.setTimeout(reloadUnlessEnded, 300);
          }
        },
        controller.signal,
      ).catch((caught: unknown) => {
        if (caught instanceof AuthRequired) props.onAuth(caught);
      });
    };
    // A first load that failed follows the stream all the same.
    void reload(follow).then(follow);
    return () => {
      controller.abort();
      window.clearTimeout(reloadTimer.current);
      window.clearTimeout(flushTimer);
    };
  }, [threadId, runId]);

  if (error) return <p class="error">{error}</p>;
  if (!data) return <p>Loading…</p>;
  const { run, thread, journal, checkpoints, report } = data;
  const outcome = run.outcome ?? report?.outcome;
  const pending = pendingRequests(thread);
  return (
    <section data-testid="run-page" data-run-id={run.run_id}>
      <p>
        <a href="#/">← runs</a>
      </p>
      <h2>
        Run <code>{short(run.run_id)}</code> <span class={`chip status-${run.status}`} data-testid="run-page-status">{run.status}</span>
      </h2>
      <p class="muted">
        thread <code>{run.thread_id}</code> · assistant {run.assistant_id} · created {run.created_at}
        {run.kwargs.checkpoint_id && (
          <>
            {" "}
            · forked from checkpoint <code>{run.kwargs.checkpoint_id}</code>
          </>
        )}
      </p>
      {outcome && (
        <p data-testid="outcome">
          outcome <strong>{outcome.status}</strong>
          {(outcome.stopReasons ?? []).length > 0 && <> · stop reasons: {outcome.stopReasons!.map(stopReasonName).join(", ")}</>}
          {outcome.usage && <> · {outcome.usage.totalTokens} tokens</>}
          {outcome.text && <span class="outcome-text"> — {outcome.text}</span>}
        </p>
      )}
      {thread.status === "interrupted" && pending.length > 0 && <Approvals thread={thread} run={run} requests={pending} onAuth={props.onAuth} />}
      <nav class="tabs">
        {(["timeline", "replay", "delegations", "requests", "tokens", "files"] as const).map((name) => (
          <button type="button" class={tab === name ? "active" : ""} data-tab={name} onClick={() => setTab(name)}>
            {name === "requests" ? "model requests" : name === "replay" ? "replay debugger" : name}
          </button>
        ))}
      </nav>
      {tab === "timeline" && <Timeline journal={journal} checkpoints={checkpoints} events={events} />}
      {tab === "replay" && <Replay run={run} journal={journal} checkpoints={checkpoints} />}
      {tab === "delegations" && (report ? <DelegationTree report={report} journal={journal} /> : <p class="muted">The delegation tree comes from the run's report, saved when the run ends.</p>)}
      {tab === "requests" && (report ? <ModelRequests report={report} /> : <p class="muted">The model requests come from the run's report, saved when the run ends.</p>)}
      {tab === "tokens" && <TokenChart journal={journal} budget={data.budget} />}
      {tab === "files" && (report ? <FilesWritten report={report} /> : <p class="muted">The files come from the run's report, saved when the run ends.</p>)}
    </section>
  );
}

function Timeline(props: { journal: JournalEntry[]; checkpoints: Checkpoint[]; events: Array<{ event: SseEvent; receivedMs: number }> }) {
  const items = buildTimeline(props.journal, props.checkpoints, props.events);
  return (
    <div>
      <p class="legend-line">
        <span class="src src-journal">journal</span> durable record of model and tool calls · <span class="src src-checkpoint">checkpoint</span> durable, resumable state ·{" "}
        <span class="src src-stream">stream</span> transient observation (may be trimmed; never the truth) · <span class="src src-commit">end</span> commit point
      </p>
      <table class="timeline" data-testid="timeline">
        <tbody>
          {items.map((item) => (
            <tr data-source={item.source} class={item.commit ? "commit" : ""} data-commit={item.commit ? "true" : undefined}>
              <td class="t">{item.atMs ? time(new Date(item.atMs).toISOString()) : ""}</td>
              <td>
                <span class={`src src-${item.commit ? "commit" : item.source}`}>{item.commit ? "end" : item.source}</span>
              </td>
              <td class="agent">{item.agent ? <code>{item.agent}</code> : ""}</td>
              <td class="label">{item.label}</td>
              <td class="detail">{item.detail}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function lastMessageText(checkpoint: Checkpoint): string {
  const messages = checkpoint.values?.messages;
  if (!Array.isArray(messages) || messages.length === 0) return "";
  const last = messages[messages.length - 1] as { type?: string; role?: string; content?: unknown };
  const content = typeof last.content === "string" ? last.content : JSON.stringify(last.content);
  return `${last.type ?? last.role ?? "message"}: ${content}`;
}

/** Scrub a run checkpoint by checkpoint, with each step's journal entries; fork from the chosen one. */
function Replay(props: { run: Run; journal: JournalEntry[]; checkpoints: Checkpoint[] }) {
  const { checkpoints } = props;
  const [index, setIndex] = useState(Math.max(0, checkpoints.length - 1));
  const [input, setInput] = useState(typeof props.run.kwargs.input === "string" ? props.run.kwargs.input : JSON.stringify(props.run.kwargs.input ?? ""));
  const [forkError, setForkError] = useState<string | null>(null);
  if (checkpoints.length === 0) return <p class="muted">No checkpoints of this run (the server keeps none, or the run has not started).</p>;
  const current = checkpoints[Math.min(index, checkpoints.length - 1)]!;
  const previous = index > 0 ? checkpoints[index - 1] : undefined;
  const from = previous?.created_at ? Date.parse(previous.created_at) : -Infinity;
  const to = current.created_at ? Date.parse(current.created_at) : Infinity;
  const stepEntries = props.journal.filter((e) => Date.parse(e.at) > from && Date.parse(e.at) <= to);
  const fork = async () => {
    setForkError(null);
    let value: unknown = input;
    try {
      value = JSON.parse(input);
    } catch {
      // plain text input
    }
    try {
      const forked = await postJson<Run>(`/threads/${enc(props.run.thread_id)}/runs`, { assistant_id: props.run.assistant_id, input: value, checkpoint_id: current.checkpoint.checkpoint_id });
      location.hash = runHref(forked.thread_id, forked.run_id);
    } catch (caught) {
      setForkError(caught instanceof Error ? caught.message : String(caught));
    }
  };
  const values = current.values ?? {};
  return (
    <div data-testid="replay">
      <label>
        checkpoint {index + 1} of {checkpoints.length}{" "}
        <input type="range" min={0} max={checkpoints.length - 1} value={index} data-testid="scrubber" onInput={(e) => setIndex(Number((e.target as HTMLInputElement).value))} />
      </label>{" "}
      <button type="button" disabled={index === 0} onClick={() => setIndex(index - 1)}>
        ◀ step
      </button>
      <button type="button" disabled={index === checkpoints.length - 1} onClick={() => setIndex(index + 1)}>
        step ▶
      </button>
      <div class="replay-grid">
        <div>
          <h3>State at this checkpoint</h3>
          <p data-testid="replay-checkpoint">
            <code>{current.checkpoint.checkpoint_id}</code> · step {current.metadata?.step ?? "?"} · {checkpointDetail(previous, current)}
          </p>
          <p>
            {Array.isArray(values.messages) ? values.messages.length : 0} messages · stop reasons: {JSON.stringify(values.stopReasons ?? [])}
          </p>
          <pre class="last-message">{lastMessageText(current)}</pre>
          <details>
            <summary>changed channels ({changedChannels(previous, current).length})</summary>
            <pre>{JSON.stringify(Object.fromEntries(changedChannels(previous, current).filter((k) => k !== "messages").map((k) => [k, values[k]])), null, 2)}</pre>
          </details>
        </div>
        <div>
          <h3>Journal entries of this step</h3>
          <ol data-testid="replay-journal">
            {stepEntries.map((e) => (
              <li>
                {time(e.at)} <code>{e.agent}</code> {e.kind === "tool_call" ? `tool ${e.name}` : e.kind === "model_call" ? `model call turn ${e.turn}` : e.name ?? e.kind} — {e.status}
              </li>
            ))}
            {stepEntries.length === 0 && <li class="muted">none</li>}
          </ol>
        </div>
      </div>
      <h3>Fork from this checkpoint</h3>
      <p class="muted">A new run on this thread continues from this checkpoint's values (the later history stays; the workspace files stay as they are).</p>
      <textarea data-testid="fork-input" rows={2} cols={80} value={input} onInput={(e) => setInput((e.target as HTMLTextAreaElement).value)} />
      <div>
        <button type="button" data-testid="fork" onClick={fork}>
          Fork into a new run
        </button>
        {forkError && (
          <span class="error" data-testid="fork-error">
            {" "}
            {forkError}
          </span>
        )}
      </div>
    </div>
  );
}
