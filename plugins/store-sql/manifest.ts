import type { Manifest } from "../../kernel/plugin/types.js";
import { DEFAULT_STORE_URL } from "./store-url.js";

/** JSON Schema of the store-sql options (defaults are applied when the stack is built). */
export const storeSqlConfigSchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    url: {
      type: "string",
      pattern: "^(sqlite:|postgres(ql)?://)",
      default: DEFAULT_STORE_URL,
      description:
        "`sqlite:PATH` (the directory is created; the checkpoints' tables `keel_ckpt_*` live in the same file), `sqlite::memory:` (tests), or `postgres://user:password@host:5432/db`.",
    },
    snapshotEvery: {
      type: "integer",
      minimum: 1,
      default: 100,
      description: "The checkpointer stores a full snapshot every this many checkpoints along a thread's history and only what changed in between; a read replays at most this many minus one deltas.",
    },
  },
} as const;

export const storeSqlManifest: Manifest = {
  name: "store-sql",
  version: "0.1.0",
  kind: "service",
  kernel: ">=0.1.0 <1",
  description:
    "Durable run store (threads, runs with their leases, journal, reports), long-term item store and LangGraph checkpointer on SQLite (default `./.keel/keel.db`) or PostgreSQL, through MikroORM.",
  provides: ["store", "checkpointer", "item-store"],
  hooks: {},
  config: storeSqlConfigSchema as unknown as Record<string, unknown>,
};
