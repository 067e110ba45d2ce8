/** Options and publish rules that every StreamBridge implementation shares. */
import { KeelError } from "../errors.js";

/** 24 h: how long a run's events stay readable after its `end` (docs/http.md, "SSE"). */
export const RETENTION_AFTER_END_MS = 24 * 60 * 60 * 1000;

/** Schedules the drop of an ended run's log; injectable so tests need not wait a day. */
export interface RetentionTimers {
  /** Run `fn` after `ms`; returns the cancel function. Must not keep the process alive. */
  schedule(fn: () => void, ms: number): () => void;
}

export const unrefTimers: RetentionTimers = {
  schedule(fn, ms) {
    const timer = setTimeout(fn, ms);
    timer.unref();
    return () => clearTimeout(timer);
  },
};

export interface RetentionOptions {
  retention?: number;
  retentionAfterEndMs?: number;
  timers?: RetentionTimers;
}

/** Defaults applied and bounds checked (KEEL_ERR_CONFIG_INVALID). */
export function readRetentionOptions(options: RetentionOptions, defaultRetention: number): Required<RetentionOptions> {
  const retention = options.retention ?? defaultRetention;
  if (!Number.isInteger(retention) || retention < 1) {
    throw new KeelError("KEEL_ERR_CONFIG_INVALID", `stream bridge \`retention\` must be an integer ≥ 1, got \`${retention}\``, { pointer: "/retention" });
  }
  const retentionAfterEndMs = options.retentionAfterEndMs ?? RETENTION_AFTER_END_MS;
  if (!(retentionAfterEndMs >= 0) || !Number.isFinite(retentionAfterEndMs)) {
    throw new KeelError("KEEL_ERR_CONFIG_INVALID", `stream bridge \`retentionAfterEndMs\` must be a finite number ≥ 0, got \`${retentionAfterEndMs}\``, {
      pointer: "/retentionAfterEndMs",
    });
  }
  return { retention, retentionAfterEndMs, timers: options.timers ?? unrefTimers };
}

/**
 * `end` is written only by `end()` (it starts the retention countdown and is the
 * commit marker); `gap` only by a subscription, for the subscriber that missed events.
 */
export function assertPublishable(event: string): void {
  if (event === "end" || event === "gap") {
    const how = event === "end" ? "call `end(runId)`" : "`gap` is produced by a subscription whose cursor fell out of retention";
    throw new KeelError("KEEL_ERR_STREAM_RESERVED_EVENT", `\`${event}\` cannot be published as an ordinary event; ${how}`);
  }
}

/** 64 MiB: the memory bridge's default byte budget over all runs (kernel/runs/README.md). */
export const MEMORY_BRIDGE_MAX_BYTES = 64 * 1024 * 1024;
/** 1 MiB: an event whose data is larger is stored truncated by the memory bridge. */
export const MEMORY_BRIDGE_MAX_EVENT_BYTES = 1024 * 1024;

export interface MemoryBudgetOptions {
  maxBytes?: number;
  maxEventBytes?: number;
}

/** The memory bridge's byte limits, defaults applied and bounds checked (KEEL_ERR_CONFIG_INVALID). */
export function readMemoryBudget(options: MemoryBudgetOptions): Required<MemoryBudgetOptions> {
  const maxEventBytes = options.maxEventBytes ?? MEMORY_BRIDGE_MAX_EVENT_BYTES;
  if (!Number.isInteger(maxEventBytes) || maxEventBytes < 1024) {
    throw new KeelError("KEEL_ERR_CONFIG_INVALID", `stream bridge \`maxEventBytes\` must be an integer ≥ 1024, got \`${maxEventBytes}\``, { pointer: "/maxEventBytes" });
  }
  const maxBytes = options.maxBytes ?? Math.max(MEMORY_BRIDGE_MAX_BYTES, maxEventBytes);
  if (!Number.isInteger(maxBytes) || maxBytes < maxEventBytes) {
    throw new KeelError("KEEL_ERR_CONFIG_INVALID", `stream bridge \`maxBytes\` must be an integer ≥ \`maxEventBytes\` (${maxEventBytes}), got \`${maxBytes}\``, { pointer: "/maxBytes" });
  }
  return { maxBytes, maxEventBytes };
}
