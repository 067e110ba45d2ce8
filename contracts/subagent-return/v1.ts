import Type, { type Static } from "typebox";
import { defineContract } from "../define.js";
import { OutcomeFields, StopLimit } from "../status/v2.js";

/** How a caller can check a deliverable, e.g. `{ type: "rows", expected: 12, found: 12 }`. */
export const Verification = Type.Object(
  { type: Type.String({ minLength: 1 }), expected: Type.Number(), found: Type.Number() },
  { additionalProperties: false },
);
export type Verification = Static<typeof Verification>;

const Steps = Type.Array(Type.String({ minLength: 1 }));

/**
 * The status@2 fields plus the child's inventory. `payload` is required but may be any
 * JSON value (`null` when the child returned nothing); `schemaValid` is `null` when the
 * caller gave no `outputSchema`.
 */
export const SubagentReturnV1 = Type.Object(
  {
    contract: Type.Literal("subagent-return"),
    version: Type.Literal(1),
    ...OutcomeFields,
    reason: Type.Optional(Type.String({ minLength: 1 })),
    limit: Type.Optional(StopLimit),
    stoppedAtStep: Type.Optional(Type.String({ minLength: 1 })),
    completedSteps: Steps,
    missingSteps: Steps,
    payload: Type.Unknown(),
    verification: Type.Optional(Verification),
    suggestions: Type.Array(Type.String()),
    retryable: Type.Boolean(),
    schemaValid: Type.Union([Type.Boolean(), Type.Null()]),
    callerNextAction: Type.Optional(Type.String()),
    criticalPath: Type.Optional(Steps),
  },
  { additionalProperties: false },
);
export type SubagentReturnV1 = Static<typeof SubagentReturnV1>;

export default defineContract("subagent-return", 1, "Keel subagent return: what a delegated child hands back", SubagentReturnV1);
