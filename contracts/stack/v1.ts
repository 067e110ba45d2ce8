import Type, { type Static } from "typebox";
import { defineContract } from "../define.js";

const PluginConfig = Type.Record(Type.String(), Type.Unknown());

export const StackEntry = Type.Union([
  Type.String({ minLength: 1 }),
  Type.Object({ name: Type.String({ minLength: 1 }), config: Type.Optional(PluginConfig) }, { additionalProperties: false }),
  Type.Object({ module: Type.String({ minLength: 1 }), config: Type.Optional(PluginConfig) }, { additionalProperties: false }),
]);
export type StackEntry = Static<typeof StackEntry>;

/** `[before, after]`. Written as 2020-12 `prefixItems` (TypeBox's Tuple emits the draft-07 form). */
const OrderPair = Type.Unsafe<[string, string]>({
  type: "array",
  prefixItems: [{ type: "string", minLength: 1 }, { type: "string", minLength: 1 }],
  items: false,
  minItems: 2,
  maxItems: 2,
});

const StackFields = {
  contract: Type.Optional(Type.Literal("stack")),
  version: Type.Optional(Type.Literal(1)),
  name: Type.String({ minLength: 1 }),
  description: Type.Optional(Type.String()),
  plugins: Type.Array(StackEntry),
  order: Type.Optional(Type.Array(OrderPair)),
};

/** A nested subagent stack cannot itself name a further subagent stack inline. */
const InlineSubagentStack = Type.Object({ ...StackFields, subagentStack: Type.Optional(Type.String({ minLength: 1 })) }, { additionalProperties: false });

export const StackV1 = Type.Object(
  {
    ...StackFields,
    subagentStack: Type.Optional(Type.Union([Type.String({ minLength: 1 }), InlineSubagentStack])),
    /** A built-in stack name or a path (relative to this file) whose plugins, order and config come first (`loadStack` resolves it). */
    extends: Type.Optional(Type.String({ minLength: 1 })),
  },
  { additionalProperties: false },
);
export type StackV1 = Static<typeof StackV1>;

export default defineContract("stack", 1, "Keel stack (a composition of plugins)", StackV1);
