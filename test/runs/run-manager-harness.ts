/**
 * Test harness for the RunManager: the real in-memory store and bridge, a fake executor
 * whose runs finish when the test says so, a manual clock, and condition waits (never
 * sleeps-and-hope).
 */
import { afterEach } from "vitest";
import type { ExecutionIO, ExecutionResult, RollbackPoint, RunExecutor } from "../../kernel/runs/executor.js";
import { MemoryStreamBridge, type MemoryStreamBridgeOptions } from "../../kernel/runs/memory-bridge.js";
import { MemoryRunStore } from "../../kernel/runs/memory-store.js";
import { RunManager, type RunManagerOptions } from "../../kernel/runs/run-manager.js";
import type { RunRecord, RunRequest, RunStore, StreamEvent } from "../../kernel/runs/types.js";
import type { StatusV2Payload } from "../../kernel/loop/status.js";

export const START_MS = Date.parse("2026-01-01T00:00:00.000Z");

export class ManualClock {
  constructor(public t = START_MS) {}
  now(): number {
    return this.t;
  }
  advance(ms: number): void {
    this.t += ms;
  }
}

export function succeeded(text = "Done."): StatusV2Payload {
  return { contract: "status", version: 2, status: "succeeded", stopReasons: [], text };
}

/** One call of the fake executor: the test finishes it. */
export interface FakeCall {
  run: RunRecord;
  io: ExecutionIO;
  finish(result?: Partial<ExecutionResult>): void;
  fail(error: Error): void;
}

/**
 * Runs last until `finish`/`fail`; on abort they answer `cancelled` like the runtime does
 * (unless `ignoreAbort`). Rollback points are available unless `rollback = "unavailable"`;
 * `events` records captures, restores and releases in order.
 */
export class FakeExecutor implements RunExecutor {
  readonly calls: FakeCall[] = [];
  readonly events: string[] = [];
  rollback: "available" | "unavailable" = "available";
  ignoreAbort = false;
  threadState: Record<string, unknown> = { messages: [] };

  async execute(run: RunRecord, io: ExecutionIO): Promise<ExecutionResult> {
    return new Promise<ExecutionResult>((resolve, reject) => {
      const call: FakeCall = {
        run,
        io,
        finish: (result = {}) => resolve({ outcome: succeeded(), ...result }),
        fail: reject,
      };
      this.calls.push(call);
      if (!this.ignoreAbort) {
        io.signal.addEventListener("abort", () =>
          resolve({ outcome: { contract: "status", version: 2, status: "cancelled", stopReasons: [], text: "Run cancelled" } }),
        );
      }
    });
  }

  async captureRollbackPoint(threadId: string): Promise<RollbackPoint | null> {
    this.events.push(`capture:${threadId}`);
    if (this.rollback === "unavailable") return null;
    return {
      restore: async () => void this.events.push(`restore:${threadId}`),
      release: async () => void this.events.push(`release:${threadId}`),
    };
  }

  async getThreadState(): Promise<Record<string, unknown>> {
    return this.threadState;
  }

  call(runId: string): FakeCall {
    const found = this.calls.find((c) => c.run.runId === runId);
    if (!found) throw new Error(`run ${runId} was never executed`);
    return found;
  }
}

/** Wait until `condition` holds, checking after every turn of the event loop; fails after `timeoutMs`. */
export async function until(condition: () => boolean | Promise<boolean>, what = "condition", timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

export interface Setup {
  store: MemoryRunStore;
  bridge: MemoryStreamBridge;
  executor: FakeExecutor;
  clock: ManualClock;
  manager: RunManager;
  /** Another manager (worker) on the same store and bridge. */
  worker(options?: Partial<RunManagerOptions>): RunManager;
  thread(threadId?: string, owner?: string): Promise<string>;
  logs: string[];
}

export async function setup(options: Partial<RunManagerOptions> = {}, bridgeOptions: MemoryStreamBridgeOptions = {}): Promise<Setup> {
  const store = new MemoryRunStore();
  const bridge = new MemoryStreamBridge(bridgeOptions);
  const executor = new FakeExecutor();
  const clock = new ManualClock();
  const logs: string[] = [];
  let ids = 0;
  const base = (overrides: Partial<RunManagerOptions>): RunManagerOptions => ({
    store,
    bridge,
    executor,
    clock,
    leaseTtlMs: 30_000,
    heartbeatMs: 10_000,
    // Runs in these tests hang until told otherwise: shutdown interrupts them at once.
    shutdownGraceMs: 0,
    newRunId: () => `run-${++ids}`,
    log: (message) => logs.push(message),
    ...options,
    ...overrides,
  });
  const manager = new RunManager(base({ workerId: "worker-a" }));
  return {
    store,
    bridge,
    executor,
    clock,
    manager,
    logs,
    worker: (overrides = {}) => new RunManager(base({ workerId: "worker-b", ...overrides })),
    async thread(threadId = "thread-1", owner = "alice") {
      const now = new Date(clock.now()).toISOString();
      await store.createThread({ threadId, owner, status: "idle", metadata: {}, createdAt: now, updatedAt: now });
      return threadId;
    },
  };
}

export const request = (input: unknown = "hello", extra: Partial<RunRequest> = {}): RunRequest => ({ assistantId: "lead", input, ...extra });

export async function eventsOf(bridge: MemoryStreamBridge, runId: string): Promise<StreamEvent[]> {
  return bridge.read(runId);
}

export async function eventNames(bridge: MemoryStreamBridge, runId: string): Promise<string[]> {
  return (await bridge.read(runId)).map((e) => e.event);
}

/** A store view whose chosen methods are replaced (e.g. one worker's stale heartbeat). */
export function storeWith(store: RunStore, overrides: Partial<Record<keyof RunStore, (...args: never[]) => unknown>>): RunStore {
  return new Proxy(store, {
    get(target, prop, receiver) {
      if (Object.hasOwn(overrides, prop)) return overrides[prop as keyof RunStore];
      const value = Reflect.get(target, prop, receiver) as unknown;
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/**
 * `started(options)` sets up a manager; every manager in `managers` (push ones you build
 * yourself) is shut down after each test. Call once at the top of a test file.
 */
export function managedSetups(): { started: (options?: Parameters<typeof setup>[0]) => Promise<Setup>; managers: RunManager[] } {
  const managers: RunManager[] = [];
  afterEach(async () => {
    await Promise.all(managers.splice(0).map((m) => m.shutdown()));
  });
  const started = async (options: Parameters<typeof setup>[0] = {}) => {
    const s = await setup(options);
    managers.push(s.manager);
    return s;
  };
  return { started, managers };
}
