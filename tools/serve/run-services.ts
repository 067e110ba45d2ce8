import type { BaseCheckpointSaver } from "@langchain/langgraph";
import { Redis } from "ioredis";
import { KeelError } from "../../kernel/errors.js";
import { MemoryStreamBridge } from "../../kernel/runs/memory-bridge.js";
import type { RunStore, StreamBridge } from "../../kernel/runs/types.js";
import { closeCheckpointer, createCheckpointer, createSqlRunStore } from "../../plugins/store-sql/index.js";
import { createRedisStreamBridge } from "../../plugins/stream-redis/index.js";

/** The durable parts of a server: store, checkpointer, stream bridge. */
export interface RunServices {
  store: RunStore;
  checkpointer: BaseCheckpointSaver;
  bridge: StreamBridge;
  /** Close all three (idempotent); the store last, after whatever still writes to it. */
  close(): Promise<void>;
}

/**
 * Open the store (`--db`: SQLite file by default, PostgreSQL by URL; schema created or
 * migrated), its checkpointer, and the bridge (`--redis` → Redis Streams, else in
 * memory). Anything unreachable fails here, at start, not on the first request.
 */
export async function openRunServices(options: { db: string; redis?: string }): Promise<RunServices> {
  const opened: Array<() => Promise<void>> = [];
  try {
    const store = await createSqlRunStore(options.db);
    opened.push(() => store.close());
    const checkpointer = await createCheckpointer(options.db);
    opened.push(() => closeCheckpointer(checkpointer));
    let bridge: StreamBridge;
    if (options.redis !== undefined) {
      await assertRedisReachable(options.redis);
      bridge = createRedisStreamBridge(options.redis);
    } else {
      bridge = new MemoryStreamBridge();
    }
    opened.push(() => bridge.close());
    let closing: Promise<void> | undefined;
    return {
      store,
      checkpointer,
      bridge,
      close: () => (closing ??= closeAll(opened)),
    };
  } catch (error) {
    await closeAll(opened);
    throw error;
  }
}

async function closeAll(closers: Array<() => Promise<void>>): Promise<void> {
  for (const close of [...closers].reverse()) {
    try {
      await close();
    } catch {
      // Closing is best effort: one failed handle must not keep the others open.
    }
  }
}

async function assertRedisReachable(url: string): Promise<void> {
  const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 5_000, retryStrategy: () => null });
  probe.on("error", () => undefined);
  try {
    await probe.connect();
    await probe.ping();
  } catch (error) {
    throw new KeelError("KEEL_ERR_SERVE_CONFIG", `Redis at \`${redactUrl(url)}\` is not reachable: ${(error as Error).message}`);
  } finally {
    probe.disconnect();
  }
}

/** A URL for messages: the password replaced. */
export function redactUrl(url: string): string {
  return url.replace(/(\/\/[^:/@]*:)[^@]*@/, "$1***@");
}
