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
        "`sqlite:PATH` (the directory is created; checkpoints go to `checkpoints.db` beside it), `sqlite::memory:` (tests), or `postgres://user:password@host:5432/db`.",
    },
  },
} as const;

export const storeSqlManifest: Manifest = {
  name: "store-sql",
  version: "0.1.0",
  kind: "service",
  kernel: ">=0.1.0 <1",
  description:
    "Durable run store (threads, runs with their leases, journal, reports) and LangGraph checkpointer on SQLite (default `./.keel/keel.db`) or PostgreSQL, through MikroORM.",
  provides: ["store", "checkpointer"],
  hooks: {},
  config: storeSqlConfigSchema as unknown as Record<string, unknown>,
};
