import type { ExecutionIO, ExecutionResult, RollbackPoint, RunExecutor } from "../../../kernel/runs/executor.js";
import { MemoryRunStore } from "../../../kernel/runs/memory-store.js";
import { MemoryStreamBridge } from "../../../kernel/runs/memory-bridge.js";
import { RunManager } from "../../../kernel/runs/run-manager.js";
import type { RunRecord } from "../../../kernel/runs/types.js";
import type { StatusV2Payload } from "../../../kernel/loop/status.js";
import { ApiKeys, createGateway, type GatewayApp, type GatewayOptions } from "../../../plugins/gateway/index.js";

export const ALICE = { "x-api-key": "key-alice" };
export const BOB = { authorization: "Bearer key-bob" };

/**
 * A run executor driven by the run's input, so HTTP tests control what a run does:
 * `{ events: n }` emits n `custom` events then succeeds; `"hang"` runs until cancelled;
 * `"gate"` waits for `release(runId)`; `"stubborn"` waits for `release(runId)` even when
 * cancelled; `"fail"` throws. `purgeThread` forgets the thread's values and records the call.
 */
export class ScriptedExecutor implements RunExecutor {
  readonly values = new Map<string, Record<string, unknown>>();
  private readonly gates = new Map<string, () => void>();
  readonly started: string[] = [];
  readonly purged: Array<{ threadId: string; checkpointThreads: readonly string[] }> = [];
  /** Runs whose `execute` returned. */
  readonly finished = new Set<string>();

  async execute(run: RunRecord, io: ExecutionIO): Promise<ExecutionResult> {
    this.started.push(run.runId);
    const input = run.request.input as unknown;
    if (input === "fail") throw new Error("scripted failure");
    if (input === "stubborn") {
      await new Promise<void>((resolve) => this.gates.set(run.runId, resolve));
      this.gates.delete(run.runId);
    }
    if (input === "hang" || input === "gate") {
      await new Promise<void>((resolve) => {
        this.gates.set(run.runId, resolve);
        io.signal.addEventListener("abort", () => resolve(), { once: true });
      });
      this.gates.delete(run.runId);
    }
    const count = typeof input === "object" && input !== null && typeof (input as { events?: unknown }).events === "number" ? (input as { events: number }).events : 2;
    for (let i = 1; i <= count && !io.signal.aborted; i++) io.emit("custom", { step: i });
    const text = `done ${run.runId}`;
    const values = { messages: [{ type: "ai", content: text }], turns: count };
    this.values.set(run.threadId, values);
    io.emit("values", values);
    io.journal({ seq: 0, at: new Date().toISOString(), runId: run.runId, agent: "lead", turn: 1, kind: "model_call", status: "ok", durationMs: 1 });
    const outcome: StatusV2Payload = io.signal.aborted
      ? { contract: "status", version: 2, status: "cancelled", stopReasons: [], text: "" }
      : { contract: "status", version: 2, status: "succeeded", stopReasons: [], text };
    this.finished.add(run.runId);
    return { outcome, values, report: { contract: "run-report", version: 1, runId: run.runId, threadId: run.threadId, outcome } };
  }

  async purgeThread(threadId: string, options: { checkpointThreads: readonly string[] }): Promise<void> {
    this.purged.push({ threadId, checkpointThreads: options.checkpointThreads });
    this.values.delete(threadId);
  }

  /** Let a `"gate"` run finish. */
  release(runId: string): boolean {
    const gate = this.gates.get(runId);
    gate?.();
    return gate !== undefined;
  }

  isWaiting(runId: string): boolean {
    return this.gates.has(runId);
  }

  async captureRollbackPoint(threadId: string): Promise<RollbackPoint | null> {
    const before = this.values.get(threadId);
    return {
      restore: async () => {
        if (before) this.values.set(threadId, before);
        else this.values.delete(threadId);
      },
      release: async () => undefined,
    };
  }

  async getThreadState(threadId: string): Promise<Record<string, unknown>> {
    return this.values.get(threadId) ?? {};
  }
}

export interface Harness {
  app: GatewayApp;
  store: MemoryRunStore;
  bridge: MemoryStreamBridge;
  runs: RunManager;
  executor: ScriptedExecutor;
  close(): Promise<void>;
}

export async function startHarness(
  options: { retention?: number; keys?: boolean; heartbeatMs?: number; deleteWaitMs?: number; joinRecheckMs?: number; bridge?: MemoryStreamBridge; gateway?: Partial<GatewayOptions> } = {},
): Promise<Harness> {
  const store = new MemoryRunStore();
  const bridge = options.bridge ?? new MemoryStreamBridge(options.retention ? { retention: options.retention } : {});
  const executor = new ScriptedExecutor();
  const runs = new RunManager({ store, bridge, executor, log: () => undefined, ...(options.joinRecheckMs ? { joinRecheckMs: options.joinRecheckMs } : {}) });
  runs.start();
  const apiKeys = options.keys === false ? new ApiKeys() : new ApiKeys([["key-alice", "alice"], ["key-bob", "bob"]]);
  const app = await createGateway({ deps: { runs, store, bridge }, apiKeys, stacks: ["lead", "subagent"], version: "9.9.9-test", ...(options.heartbeatMs ? { heartbeatMs: options.heartbeatMs } : {}), ...(options.deleteWaitMs ? { deleteWaitMs: options.deleteWaitMs } : {}), ...options.gateway });
  return {
    app,
    store,
    bridge,
    runs,
    executor,
    async close() {
      await runs.shutdown();
      await app.close();
      await bridge.close();
    },
  };
}

/** Create a thread as `headers`' user and return its id. */
export async function createThread(app: GatewayApp, headers: Record<string, string> = ALICE): Promise<string> {
  const response = await app.inject({ method: "POST", url: "/threads", headers, payload: {} });
  if (response.statusCode !== 200) throw new Error(`thread creation failed: ${response.statusCode} ${response.body}`);
  return (response.json() as { thread_id: string }).thread_id;
}

export interface SseFrame {
  event?: string;
  data?: string;
  id?: string;
  comment?: string;
  /** Field names in the order they appeared. */
  fields: string[];
}

/** Split an SSE body into frames (blank-line separated), keeping field order. */
export function parseSse(body: string): SseFrame[] {
  return body
    .split("\n\n")
    .filter((block) => block.trim() !== "")
    .map((block) => {
      const frame: SseFrame = { fields: [] };
      for (const line of block.split("\n")) {
        if (line.startsWith(":")) {
          frame.comment = line.slice(1).trim();
          frame.fields.push("comment");
          continue;
        }
        const colon = line.indexOf(":");
        const name = line.slice(0, colon);
        const value = line.slice(colon + 1).replace(/^ /, "");
        frame.fields.push(name);
        if (name === "event" || name === "data" || name === "id") frame[name] = value;
      }
      return frame;
    });
}

/** Poll until `check` holds (the run service works asynchronously); throws after ~5 s. */
export async function until<T>(check: () => Promise<T | undefined | false> | T | undefined | false, what = "condition"): Promise<T> {
  for (let i = 0; i < 500; i++) {
    const value = await check();
    if (value) return value;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}
