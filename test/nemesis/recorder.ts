/**
 * The suite's HTTP client: every request goes through `Recorder.call`, which records what
 * the client was answered (status, JSON body or SSE events, timestamps) into the history
 * the checker reads. A request that got no HTTP answer is recorded with its error.
 */
import type { Answer, Fault, History, Op, SseEvent } from "./history.js";

export interface Target {
  name: string;
  url: string;
}

export interface CallOptions {
  body?: unknown;
  /** Abort the request after this many ms (a client disconnect the scenario injects: recorded as abandoned). */
  abandonAfterMs?: number;
  /** A hard bound on the whole request (a hang guard; a timeout is recorded as an error, not as abandoned). */
  timeoutMs?: number;
  headers?: Record<string, string>;
  /** The API key (a user); default: the key the thread was created with, else the recorder's. */
  key?: string;
}

const RUN_PATH = /\/threads\/([^/?]+)(?:\/runs\/([^/?]+))?/;

export function parseSse(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  for (const block of text.split(/\n\n/)) {
    let event: string | undefined;
    let id: string | undefined;
    const data: string[] = [];
    for (const line of block.split("\n")) {
      if (line.startsWith("event:")) event = line.slice(6).trim();
      else if (line.startsWith("data:")) data.push(line.slice(5).trimStart());
      else if (line.startsWith("id:")) id = line.slice(3).trim();
    }
    if (event === undefined) continue;
    let parsed: unknown = data.join("\n");
    try {
      parsed = JSON.parse(parsed as string);
    } catch {
      /* keep the text */
    }
    events.push({ event, data: parsed, ...(id !== undefined ? { id } : {}) });
  }
  return events;
}

export class Recorder {
  readonly history: History = { answers: [], faults: [] };
  private nextId = 1;
  /** The API key each thread was created with: its owner's, used for every later call on it. */
  private readonly keyOf = new Map<string, string>();
  constructor(private readonly apiKey: string, public scenario = "setup") {}

  /** Record a fault from now; call the returned function when it is lifted. */
  fault(kind: Fault["kind"], target: string): () => void {
    const fault: Fault = { scenario: this.scenario, kind, target, at: Date.now() };
    this.history.faults.push(fault);
    return () => {
      fault.until = Date.now();
    };
  }

  forScenario(scenario: string): History {
    return { answers: this.history.answers.filter((a) => a.scenario === scenario), faults: this.history.faults.filter((f) => f.scenario === scenario) };
  }

  async call(target: Target, op: Op, method: string, path: string, options: CallOptions = {}): Promise<Answer> {
    const match = RUN_PATH.exec(path);
    const answer: Answer = { id: this.nextId++, scenario: this.scenario, worker: target.name, op, method, path, sentAt: Date.now(), endedAt: 0 };
    if (match?.[1] && match[1] !== "search") answer.threadId = decodeURIComponent(match[1]);
    if (match?.[2] && !["stream", "wait"].includes(match[2])) answer.runId = match[2];
    this.history.answers.push(answer);
    const key = options.key ?? (answer.threadId !== undefined ? this.keyOf.get(answer.threadId) : undefined) ?? this.apiKey;
    const controller = new AbortController();
    const timers: NodeJS.Timeout[] = [];
    if (options.abandonAfterMs !== undefined) {
      timers.push(
        setTimeout(() => {
          answer.abandoned = true;
          controller.abort(new Error("abandoned by the client"));
        }, options.abandonAfterMs),
      );
    }
    timers.push(setTimeout(() => controller.abort(new Error(`no answer within ${options.timeoutMs ?? 60_000} ms`)), options.timeoutMs ?? 60_000));
    try {
      const response = await fetch(`${target.url}${path}`, {
        method,
        headers: { "x-api-key": key, ...(options.body !== undefined ? { "content-type": "application/json" } : {}), ...options.headers },
        ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
        signal: controller.signal,
      });
      answer.status = response.status;
      const location = response.headers.get("content-location");
      const runInLocation = location ? RUN_PATH.exec(location)?.[2] : undefined;
      if (runInLocation) answer.runId = runInLocation;
      const type = response.headers.get("content-type") ?? "";
      let text = "";
      try {
        if (type.includes("text/event-stream") && response.body) {
          const decoder = new TextDecoder();
          for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
            text += decoder.decode(chunk, { stream: true });
            answer.events = parseSse(text);
          }
        } else {
          text = await response.text();
        }
      } catch (error) {
        answer.error = `the body broke off: ${(error as Error).message}`;
      }
      if (type.includes("text/event-stream")) answer.events = parseSse(text);
      else if (text !== "") {
        try {
          answer.body = JSON.parse(text);
        } catch {
          answer.body = text;
        }
      }
      const body = answer.body as { run_id?: string; thread_id?: string } | undefined;
      if (op === "create_run" && typeof body?.run_id === "string") answer.runId = body.run_id;
      if (op === "create_thread" && typeof body?.thread_id === "string") {
        answer.threadId = body.thread_id;
        if (answer.status === 200) this.keyOf.set(body.thread_id, key);
      }
    } catch (error) {
      answer.error = ((error as Error).cause as Error | undefined)?.message ?? (error as Error).message;
    } finally {
      for (const timer of timers) clearTimeout(timer);
      answer.endedAt = Date.now();
    }
    return answer;
  }

  // Shorthands for the routes the scenarios use.
  createThread(t: Target, options: { threadId?: string; key?: string } = {}): Promise<Answer> {
    return this.call(t, "create_thread", "POST", "/threads", { body: options.threadId ? { thread_id: options.threadId } : {}, ...(options.key ? { key: options.key } : {}) });
  }
  deleteThread(t: Target, threadId: string): Promise<Answer> {
    return this.call(t, "delete_thread", "DELETE", `/threads/${threadId}`, { timeoutMs: 30_000 });
  }
  readThread(t: Target, threadId: string): Promise<Answer> {
    return this.call(t, "read_thread", "GET", `/threads/${threadId}`, { timeoutMs: 15_000 });
  }
  createRun(t: Target, threadId: string, body: Record<string, unknown> = {}): Promise<Answer> {
    return this.call(t, "create_run", "POST", `/threads/${threadId}/runs`, { body: { assistant_id: "lead", input: "Work through the gate.", ...body }, timeoutMs: 30_000 });
  }
  getRun(t: Target, threadId: string, runId: string): Promise<Answer> {
    return this.call(t, "get_run", "GET", `/threads/${threadId}/runs/${runId}`, { timeoutMs: 15_000 });
  }
  join(t: Target, threadId: string, runId: string, options: CallOptions = {}): Promise<Answer> {
    return this.call(t, "join", "GET", `/threads/${threadId}/runs/${runId}/join`, { timeoutMs: 90_000, ...options });
  }
  stream(t: Target, threadId: string, runId: string, options: CallOptions = {}): Promise<Answer> {
    return this.call(t, "stream", "GET", `/threads/${threadId}/runs/${runId}/stream`, { timeoutMs: 90_000, ...options });
  }
  wait(t: Target, threadId: string, body: Record<string, unknown> = {}, options: CallOptions = {}): Promise<Answer> {
    return this.call(t, "wait", "POST", `/threads/${threadId}/runs/wait`, { body: { assistant_id: "lead", input: "Work through the gate.", ...body }, timeoutMs: 90_000, ...options });
  }
  streamRun(t: Target, threadId: string, body: Record<string, unknown> = {}, options: CallOptions = {}): Promise<Answer> {
    return this.call(t, "stream", "POST", `/threads/${threadId}/runs/stream`, { body: { assistant_id: "lead", input: "Work through the gate.", ...body }, timeoutMs: 90_000, ...options });
  }
}
