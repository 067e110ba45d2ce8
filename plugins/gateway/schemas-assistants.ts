import Type, { type Static } from "typebox";
import { Nullable } from "./schemas.js";

/**
 * Request schemas of the assistants routes (docs/http.md, "Assistants API").
 * Objects stay open (unknown fields are ignored, as LangGraph does); the fields Keel uses
 * are checked strictly, and a mismatch is a 400 naming the JSON pointer.
 */

const OpenObject = Type.Record(Type.String(), Type.Unknown());
/** A caller-chosen assistant id: one URL path segment (LangGraph generates UUIDs; any such id works here). */
const AssistantId = Type.String({ minLength: 1, maxLength: 128, pattern: "^[A-Za-z0-9][A-Za-z0-9._:-]*$" });
const Limit = Type.Integer({ minimum: 1, maximum: 1000 });
const Offset = Type.Integer({ minimum: 0, maximum: 2_147_483_647 });

/** LangGraph's AssistantConfig: a RunnableConfig's serializable fields, open for more. */
const AssistantConfig = Type.Object({
  tags: Type.Optional(Type.Array(Type.String(), { maxItems: 64 })),
  recursion_limit: Type.Optional(Type.Integer({ minimum: 1 })),
  configurable: Type.Optional(OpenObject),
});

/**
 * Keel's options of a user assistant: plugin options by plugin name (checked against the
 * stack's config schemas), the model, the turn limit. Other keys are kept as given.
 */
export const AssistantContext = Type.Object({
  plugins: Type.Optional(Type.Record(Type.String(), OpenObject)),
  model: Type.Optional(Type.String({ minLength: 1 })),
  maxTurns: Type.Optional(Type.Integer({ minimum: 1 })),
});

export const AssistantCreateBody = Type.Object({
  graph_id: Type.String({ minLength: 1, maxLength: 128 }),
  assistant_id: Type.Optional(Nullable(AssistantId)),
  config: Type.Optional(Nullable(AssistantConfig)),
  context: Type.Optional(Nullable(AssistantContext)),
  metadata: Type.Optional(Nullable(OpenObject)),
  if_exists: Type.Optional(Nullable(Type.Enum(["raise", "do_nothing"]))),
  name: Type.Optional(Nullable(Type.String({ maxLength: 256 }))),
  description: Type.Optional(Nullable(Type.String({ maxLength: 4096 }))),
});
export type AssistantCreateBody = Static<typeof AssistantCreateBody>;

export const AssistantPatchBody = Nullable(
  Type.Object({
    graph_id: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 128 }))),
    config: Type.Optional(Nullable(AssistantConfig)),
    context: Type.Optional(Nullable(AssistantContext)),
    metadata: Type.Optional(Nullable(OpenObject)),
    name: Type.Optional(Nullable(Type.String({ maxLength: 256 }))),
    description: Type.Optional(Nullable(Type.String({ maxLength: 4096 }))),
  }),
);
export type AssistantPatchBody = Static<typeof AssistantPatchBody>;

/** The fields of an Assistant a search may `select`. */
export const ASSISTANT_FIELDS = ["assistant_id", "graph_id", "name", "description", "config", "context", "metadata", "version", "created_at", "updated_at"] as const;

const FilterFields = {
  graph_id: Type.Optional(Nullable(Type.String())),
  name: Type.Optional(Nullable(Type.String({ maxLength: 256 }))),
  metadata: Type.Optional(Nullable(OpenObject)),
};

export const AssistantSearchBody = Nullable(
  Type.Object({
    ...FilterFields,
    // Not nullable: AJV's coercion would turn a 0 into null and skip the minimum.
    limit: Type.Optional(Limit),
    offset: Type.Optional(Offset),
    sort_by: Type.Optional(Nullable(Type.Enum(["assistant_id", "graph_id", "created_at", "updated_at", "name"]))),
    sort_order: Type.Optional(Nullable(Type.Enum(["asc", "desc"]))),
    select: Type.Optional(Nullable(Type.Array(Type.Enum([...ASSISTANT_FIELDS]), { minItems: 1, maxItems: ASSISTANT_FIELDS.length }))),
  }),
);
export type AssistantSearchBody = Static<typeof AssistantSearchBody>;

export const AssistantCountBody = Nullable(Type.Object(FilterFields));
export type AssistantCountBody = Static<typeof AssistantCountBody>;

export const AssistantVersionsBody = Nullable(
  Type.Object({
    metadata: Type.Optional(Nullable(OpenObject)),
    // Not nullable: AJV's coercion would turn a 0 into null and skip the minimum.
    limit: Type.Optional(Limit),
    offset: Type.Optional(Offset),
  }),
);
export type AssistantVersionsBody = Static<typeof AssistantVersionsBody>;

export const AssistantLatestBody = Type.Object({ version: Type.Integer({ minimum: 1 }) });
export type AssistantLatestBody = Static<typeof AssistantLatestBody>;

export const AssistantIdParams = Type.Object({ aid: Type.String({ minLength: 1, maxLength: 128 }) });
export const AssistantSubgraphParams = Type.Object({ aid: Type.String({ minLength: 1, maxLength: 128 }), namespace: Type.String({ minLength: 1, maxLength: 128 }) });

/** The SDK sends booleans as `true|false`; `1|0` are accepted too. LangGraph's `xray` may also be a depth (any depth ≥ 1 includes the subagents). */
const Flag = Type.Union([Type.Boolean(), Type.Enum(["0", "1", "true", "false"])]);
export const AssistantGraphQuery = Type.Object({ xray: Type.Optional(Type.Union([Type.Boolean(), Type.Integer({ minimum: 0, maximum: 100 })])) });
export type AssistantGraphQuery = Static<typeof AssistantGraphQuery>;
export const AssistantSubgraphsQuery = Type.Object({ recurse: Type.Optional(Flag) });
export const AssistantDeleteQuery = Type.Object({ delete_threads: Type.Optional(Flag) });
export type AssistantDeleteQuery = Static<typeof AssistantDeleteQuery>;
