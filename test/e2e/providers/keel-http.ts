import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { packageRoot } from "../../../kernel/package-root.js";

/** The built-in lead stack with error-fallback's waits shortened and its breaker out of the way, written to `dir`. */
export function writeE2eStack(dir: string, errorFallback: Record<string, unknown>): string {
  const stack = JSON.parse(readFileSync(join(packageRoot(), "plugins", "stacks", "lead.json"), "utf8")) as { name: string; description?: string; plugins: unknown[] };
  stack.name = "lead-e2e";
  stack.description = "The lead stack, error-fallback tuned for fast tests.";
  stack.plugins = stack.plugins.map((entry) => (entry === "error-fallback" ? { name: "error-fallback", config: errorFallback } : entry));
  const file = join(dir, "lead-e2e.json");
  writeFileSync(file, JSON.stringify(stack, null, 2));
  return file;
}

export interface SseEvent {
  event: string;
  data: unknown;
}

export interface JournalEntry {
  seq: number;
  agent: string;
  turn: number;
  kind: string;
  name?: string;
  status: string;
  retryInMs?: number;
}

export interface RunOutcome {
  status: string;
  text: string;
  stopReasons: Array<{ reason: string; by: string; detail?: string }>;
  error?: { type: string; message: string; retryable: boolean };
}

export interface FinishedRun {
  runId: string;
  outcome: RunOutcome;
  /** The run's stream events as the report keeps them. */
  events: SseEvent[];
  journal: JournalEntry[];
  /** SSE events the client received (streamed runs only). */
  received: SseEvent[];
  wallMs: number;
}

function parseSse(text: string): SseEvent[] {
  const out: SseEvent[] = [];
  for (const block of text.split("\n\n")) {
    const event = /^event: (.*)$/m.exec(block)?.[1];
    const data = /^data: (.*)$/m.exec(block)?.[1];
    if (event && data !== undefined) out.push({ event, data: JSON.parse(data) });
  }
  return out;
}

/** Run `input` on a new thread of `assistant` (waiting, or streaming messages and updates), then read its report and journal. */
export async function runOnce(url: string, assistant: string, input: string, options: { stream?: boolean } = {}): Promise<FinishedRun> {
  const post = (path: string, body: unknown) => fetch(`${url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const thread = (await (await post("/threads", {})).json()) as { thread_id: string };
  const started = performance.now();
  const response = options.stream
    ? await post(`/threads/${thread.thread_id}/runs/stream`, { assistant_id: assistant, input, stream_mode: ["messages-tuple", "updates", "custom"] })
    : await post(`/threads/${thread.thread_id}/runs/wait`, { assistant_id: assistant, input });
  const body = await response.text();
  const wallMs = performance.now() - started;
  if (response.status !== 200) throw new Error(`run request answered ${response.status}: ${body}`);
  const runPath = response.headers.get("content-location");
  if (!runPath) throw new Error("no content-location on the run response");
  const report = (await (await fetch(`${url}${runPath}/report`)).json()) as { runId: string; outcome: RunOutcome; events: SseEvent[] };
  const journal = (await (await fetch(`${url}${runPath}/journal`)).json()) as JournalEntry[];
  return { runId: report.runId, outcome: report.outcome, events: report.events, journal, received: options.stream ? parseSse(body) : [], wallMs };
}

export const guardsOf = (run: FinishedRun) => run.events.filter((e) => e.event === "guard").map((e) => e.data as { plugin: string; action: string; reason: string; detail?: string; retryInMs?: number });
export const journalOf = (run: FinishedRun, kind: string) => run.journal.filter((e) => e.kind === kind);
