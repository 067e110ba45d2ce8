import type { BaseCheckpointSaver } from "@langchain/langgraph";
import { compose } from "../../kernel/compose/index.js";
import type { Composition, StackInput } from "../../kernel/compose/types.js";
import { KeelError } from "../../kernel/errors.js";
import type { Plugin } from "../../kernel/plugin/types.js";
import { buildPort, portProvider } from "../../kernel/ports/resolve.js";
import { ITEM_STORE_PORT, type ItemStore } from "../../kernel/ports/item-store.js";
import { MemoryItemStore } from "../../kernel/runs/memory-item-store.js";
import { MemoryStreamBridge } from "../../kernel/runs/memory-bridge.js";
import type { RunStore, StreamBridge } from "../../kernel/runs/types.js";
import { SERVICE_PLUGINS } from "../../plugins/builtins.js";
import type { HttpPort } from "../../plugins/gateway/index.js";
import { toAuthHandler, type AuthHandler } from "../../plugins/gateway/auth-handler.js";
import { loadIoredis } from "../../plugins/stream-redis/redis-bridge.js";
import type { CronStore } from "../../kernel/runs/cron-types.js";
import { SqlCronStore } from "../../plugins/store-sql/cron-sql.js";
import { SqlAssistantStore } from "../../plugins/store-sql/sql-assistant-store.js";
import { storeSqlDatabase } from "../../plugins/store-sql/index.js";

/** The ports a server runs on, resolved through compose from its service plugins. */
export const SERVICE_PORTS = { store: "store", checkpointer: "checkpointer", bridge: "stream-bridge", http: "http", items: ITEM_STORE_PORT, auth: "auth" } as const;

/** The durable parts of a server: store, checkpointer, stream bridge, and the HTTP port. */
export interface RunServices {
  store: RunStore;
  checkpointer: BaseCheckpointSaver;
  bridge: StreamBridge;
  http: HttpPort;
  /** The crons, in the store's database (`keel_crons`), on the run store's connection pool. */
  crons: CronStore;
  /** User assistants, in the store's database (on PostgreSQL, the run store's pool; on SQLite, a connection of their own). */
  assistants: SqlAssistantStore;
  /** Long-term items (`/store/*`, plugins' `item-store` port): store-sql's, in memory when no plugin provides one. */
  items: ItemStore;
  /** A `--plugin` service's `auth` port (a custom auth handler), when one provides it. */
  auth?: AuthHandler;
  /** The composed service stack (`keel serve`'s services, in order). */
  composition: Composition;
  /** Close every opened port (idempotent), in reverse order of opening: the store last. */
  close(): Promise<void>;
}

export interface RunServicesOptions {
  /** `--db`: the store-sql URL. */
  db: string;
  /** `--redis`: adds the stream-redis service. */
  redis?: string;
  /** `--stream-memory-mb` in bytes: the budget of the in-memory bridge (when no plugin provides one). Default 64 MiB. */
  streamMemoryBytes?: number;
  /** `--plugin` service modules: they join the service stack and may provide any port (e.g. `stream-bridge`). */
  plugins?: readonly Plugin[];
}

/**
 * Compose the server's service stack — store-sql (`--db`), stream-redis (`--redis`), the
 * gateway, and any `--plugin` service — and open its ports: `store`, `checkpointer`,
 * `stream-bridge` (the in-memory bridge when no plugin provides one) and `http`. Two
 * providers of one port are a composition error. Anything unreachable fails here, at
 * start, not on the first request.
 */
export async function openRunServices(options: RunServicesOptions): Promise<RunServices> {
  const composition = composeServices(options);
  const opened: unknown[] = [];
  const open = <T>(port: string): T => {
    const built = buildPort<T>(composition, port);
    opened.push(built);
    return built;
  };
  try {
    const store = open<RunStore>(SERVICE_PORTS.store);
    await store.init();
    // The companion stores open on store-sql's one connection pool (its schema diff already ran).
    const database = await storeSqlDatabase(portProvider(composition, SERVICE_PORTS.store)!.config);
    const crons = await SqlCronStore.open(database);
    opened.push(crons);
    const assistants = await SqlAssistantStore.open(database);
    opened.push(assistants);
    const checkpointer = open<BaseCheckpointSaver>(SERVICE_PORTS.checkpointer);
    // One read makes a checkpointer that connects lazily (PostgreSQL) fail now.
    await checkpointer.getTuple({ configurable: { thread_id: "keel:start-probe", checkpoint_ns: "" } });
    if (options.redis !== undefined) await assertRedisReachable(options.redis);
    const bridge = portProvider(composition, SERVICE_PORTS.bridge) ? open<StreamBridge>(SERVICE_PORTS.bridge) : (opened.push(new MemoryStreamBridge(options.streamMemoryBytes === undefined ? {} : { maxBytes: options.streamMemoryBytes })), opened.at(-1) as StreamBridge);
    const items = portProvider(composition, SERVICE_PORTS.items) ? open<ItemStore & { init?(): Promise<void> }>(SERVICE_PORTS.items) : new MemoryItemStore();
    await (items as { init?(): Promise<void> }).init?.();
    const http = open<HttpPort>(SERVICE_PORTS.http);
    const auth = portProvider(composition, SERVICE_PORTS.auth) ? toAuthHandler(open<unknown>(SERVICE_PORTS.auth), "the `auth` port of a --plugin service") : undefined;
    let closing: Promise<void> | undefined;
    return { store, crons, assistants, checkpointer, bridge, http, items, ...(auth ? { auth } : {}), composition, close: () => (closing ??= closeAll(opened)) };
  } catch (error) {
    await closeAll(opened);
    throw error;
  }
}

/** The service stack of `keel serve`: the built-in services its flags name, then the `--plugin` services. */
export function composeServices(options: RunServicesOptions): Composition {
  const extra = options.plugins ?? [];
  for (const plugin of extra) {
    if (plugin.manifest.kind !== "service") {
      throw new KeelError(
        "KEEL_ERR_SERVE_CONFIG",
        `plugin \`${plugin.manifest.name}\` is a \`${plugin.manifest.kind}\` plugin; \`keel serve --plugin\` adds services (manifest \`kind: "service"\`) — add middleware to an agent stack file and serve it with \`--stack FILE\``,
      );
    }
  }
  const stack: StackInput = {
    name: "serve",
    plugins: [{ name: "store-sql", config: { url: options.db } }, ...(options.redis !== undefined ? [{ name: "stream-redis", config: { url: options.redis } }] : []), "gateway", ...extra],
  };
  return compose(stack, { plugins: [...SERVICE_PLUGINS, ...extra] });
}

async function closeAll(ports: readonly unknown[]): Promise<void> {
  for (const port of [...ports].reverse()) {
    try {
      const close = (port as { close?: unknown }).close;
      if (typeof close === "function") await (close as () => Promise<void>).call(port);
    } catch {
      // Closing is best effort: one failed handle must not keep the others open.
    }
  }
}

async function assertRedisReachable(url: string): Promise<void> {
  const { Redis } = loadIoredis();
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
