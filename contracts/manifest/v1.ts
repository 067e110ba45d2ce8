import Type, { type Static } from "typebox";
import { defineContract } from "../define.js";
import { PluginName, SemVer } from "../shared.js";

/** A plugin name or channel name, hard, or `{ name, optional: true }` (applies only when present). */
export const Reference = Type.Union([
  Type.String({ minLength: 1 }),
  Type.Object({ name: Type.String({ minLength: 1 }), optional: Type.Boolean() }, { additionalProperties: false }),
]);
export type Reference = Static<typeof Reference>;

const AccessList = Type.Array(Reference);

/**
 * Where a hook sits in its chain without naming peers (Rollup's hook `order`): `pre` runs
 * before, `post` after every plugin of the stack that has the same hook without that placement,
 * in the hook's execution order (wrap hooks: `pre` outermost, `post` innermost; after* hooks
 * run reversed, so their edges point the other way in the composed order).
 */
export const HookPlacement = Type.Union([Type.Literal("pre"), Type.Literal("post")]);
export type HookPlacement = Static<typeof HookPlacement>;

export const HookDeclaration = Type.Object(
  {
    observes: Type.Optional(AccessList),
    mutates: Type.Optional(AccessList),
    retries: Type.Optional(Type.Boolean()),
    order: Type.Optional(HookPlacement),
  },
  { additionalProperties: false },
);
export type HookDeclaration = Static<typeof HookDeclaration>;

export const ReducerSpec = Type.Union([
  Type.Union([Type.Literal("replace"), Type.Literal("append"), Type.Literal("append-set"), Type.Literal("sum")]),
  Type.Object(
    { kind: Type.Literal("append-set"), key: Type.Array(Type.String({ minLength: 1 }), { minItems: 1 }) },
    { additionalProperties: false },
  ),
  /**
   * `append` keeping only the newest `keepNewest` items (a bounded log). `keepNewestOption`
   * names an integer option of the owning plugin that replaces `keepNewest` when set.
   */
  Type.Object(
    {
      kind: Type.Literal("append"),
      keepNewest: Type.Integer({ minimum: 1 }),
      keepNewestOption: Type.Optional(Type.String({ pattern: "^[a-zA-Z][a-zA-Z0-9_]*$" })),
    },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      kind: Type.Literal("merge-by-id"),
      key: Type.String({ minLength: 1 }),
      guard: Type.Optional(Type.Literal("no-terminal-downgrade")),
      keepNewest: Type.Optional(Type.Integer({ minimum: 1 })),
    },
    { additionalProperties: false },
  ),
]);
export type ReducerSpec = Static<typeof ReducerSpec>;

export const ChannelDeclaration = Type.Object(
  {
    schema: Type.Record(Type.String(), Type.Unknown()),
    reducer: ReducerSpec,
    contract: Type.Optional(Type.String({ pattern: "^[a-z][a-z0-9-]*@\\d+$" })),
    description: Type.Optional(Type.String()),
    /**
     * Written only by the runtime and its plugins: a caller's input, config, metadata or
     * context may not set it (request hygiene strips the key and its snake_case spelling),
     * and a state write from outside the run must be refused.
     */
    runtimeOwned: Type.Optional(Type.Boolean()),
    /** Field names inside this channel's entries that are runtime-owned too (stripped from a request like the channel). Only with `runtimeOwned`. */
    runtimeOwnedFields: Type.Optional(Type.Array(Type.String({ pattern: "^[a-zA-Z][a-zA-Z0-9._-]*$" }))),
  },
  { additionalProperties: false },
);
export type ChannelDeclaration = Static<typeof ChannelDeclaration>;

/**
 * A plugin's own error codes: `PLUGIN_<NAME>_<PROBLEM>`, NAME the plugin's name in upper case
 * with `-` as `_` (checked by the manifest audit). Listed in docs/errors.md for built-ins.
 */
export const PluginErrorSpec = Type.Object(
  { description: Type.String({ minLength: 1 }), solve: Type.String({ minLength: 1 }) },
  { additionalProperties: false },
);
export const PluginErrors = Type.Record(Type.String({ pattern: "^PLUGIN_[A-Z0-9]+(_[A-Z0-9]+)+$" }), PluginErrorSpec);

const ContractRef = Type.String({ pattern: "^[a-z][a-z0-9-]*@\\S+$" });

export const ManifestV1 = Type.Object(
  {
    name: PluginName,
    version: SemVer,
    kind: Type.Union([Type.Literal("middleware"), Type.Literal("service")]),
    kernel: Type.String({ minLength: 1 }),
    description: Type.String(),
    hooks: Type.Object(
      {
        beforeAgent: Type.Optional(HookDeclaration),
        beforeModel: Type.Optional(HookDeclaration),
        wrapModelCall: Type.Optional(HookDeclaration),
        afterModel: Type.Optional(HookDeclaration),
        wrapToolCall: Type.Optional(HookDeclaration),
        afterAgent: Type.Optional(HookDeclaration),
      },
      { additionalProperties: false },
    ),
    requiresBefore: Type.Optional(Type.Array(Reference)),
    observes: Type.Optional(AccessList),
    mutates: Type.Optional(AccessList),
    channels: Type.Optional(Type.Record(Type.String({ pattern: "^[a-zA-Z][a-zA-Z0-9._-]*$" }), ChannelDeclaration)),
    contracts: Type.Optional(
      Type.Object(
        { produces: Type.Optional(Type.Array(ContractRef)), consumes: Type.Optional(Type.Array(ContractRef)) },
        { additionalProperties: false },
      ),
    ),
    config: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    provides: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
    requires: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
    errors: Type.Optional(PluginErrors),
  },
  { additionalProperties: false },
);
export type ManifestV1 = Static<typeof ManifestV1>;

export default defineContract("manifest", 1, "Keel plugin manifest", ManifestV1);
