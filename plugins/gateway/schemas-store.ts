import Type, { type Static } from "typebox";
import { Nullable } from "./schemas.js";

/**
 * Request schemas of the store routes (`/store/*`, routes/store-items.ts), in LangGraph's
 * wire shapes. Open objects as everywhere (unknown fields ignored); namespace labels are
 * checked further by `assertNamespace` (LangGraph's rule), filters by `assertFilter`.
 * A `null` number is the same as absent (`Nullable`: `0` stays `0`).
 */

const Label = Type.String({ maxLength: 256 });
/** At most 32 labels; a label is checked by `assertNamespace` (non-empty, no `.`, `:` or NUL). */
const Namespace = Type.Array(Label, { maxItems: 32 });
const Key = Type.String({ minLength: 1, maxLength: 1024 });
const OpenObject = Type.Record(Type.String(), Type.Unknown());
/** `0` is an empty page, as LangGraph answers (`{ items: [] }`, `{ namespaces: [] }`). */
const Limit = Type.Integer({ minimum: 0, maximum: 1000 });
const Offset = Type.Integer({ minimum: 0, maximum: 2_147_483_647 });
/** LangGraph's TTL: minutes (fractions allowed), at most 100 years. */
const TtlMinutes = Type.Number({ exclusiveMinimum: 0, maximum: 52_560_000 });
/** The SDK sends `refresh_ttl=true|false` in the query string. */
const Flag = Type.Union([Type.Boolean(), Type.Enum(["0", "1", "true", "false"])]);

export const StorePutBody = Type.Object({
  namespace: Namespace,
  key: Key,
  value: OpenObject,
  /** null / false / []: nothing to embed; a list of fields needs an embeddings index (400 KEEL_ERR_STORE_NO_INDEX). */
  index: Type.Optional(Nullable(Type.Union([Type.Literal(false), Type.Array(Type.String({ maxLength: 256 }), { maxItems: 64 })]))),
  ttl: Type.Optional(Nullable(TtlMinutes)),
});
export type StorePutBody = Static<typeof StorePutBody>;

export const StoreGetQuery = Type.Object({
  /** The labels joined with `.`; absent or empty: the root namespace. */
  namespace: Type.Optional(Type.String({ maxLength: 8192 })),
  key: Key,
  refresh_ttl: Type.Optional(Flag),
});
export type StoreGetQuery = Static<typeof StoreGetQuery>;

export const StoreDeleteBody = Type.Object({
  namespace: Type.Optional(Nullable(Namespace)),
  key: Key,
});
export type StoreDeleteBody = Static<typeof StoreDeleteBody>;

export const StoreSearchBody = Type.Object({
  namespace_prefix: Namespace,
  filter: Type.Optional(Nullable(OpenObject)),
  limit: Type.Optional(Nullable(Limit)),
  offset: Type.Optional(Nullable(Offset)),
  /** Semantic search: needs an embeddings index (400 KEEL_ERR_STORE_NO_INDEX); `""` is no query. */
  query: Type.Optional(Nullable(Type.String({ maxLength: 8192 }))),
  refresh_ttl: Type.Optional(Nullable(Type.Boolean())),
});
export type StoreSearchBody = Static<typeof StoreSearchBody>;

export const StoreNamespacesBody = Nullable(
  Type.Object({
    prefix: Type.Optional(Nullable(Namespace)),
    suffix: Type.Optional(Nullable(Namespace)),
    max_depth: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 32 }))),
    limit: Type.Optional(Nullable(Limit)),
    offset: Type.Optional(Nullable(Offset)),
  }),
);
export type StoreNamespacesBody = Static<typeof StoreNamespacesBody>;
