import Type, { type Static } from "typebox";
import { defineContract } from "../define.js";
import { Sha256Hex, Usage } from "../shared.js";

export const RUN_STATUSES = ["succeeded", "partial", "failed", "cancelled", "timed_out"] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

export const LIMIT_TYPES = ["turns", "tokens", "calls", "subagents", "seconds"] as const;

/** The limit a stop reason hit, e.g. `{ type: "turns", value: 150 }`. */
export const StopLimit = Type.Object({ type: Type.Enum(LIMIT_TYPES), value: Type.Number() }, { additionalProperties: false });
export type StopLimit = Static<typeof StopLimit>;

/**
 * `reason` is an open set (known values: `safety_capped`, `budget_exceeded`, `token_capped`, `loop_capped`, `progress_blocked`, `subagent_limit_capped`, `turn_capped`, `model_length_capped`, `lease_expired`, `awaiting_input` — a run paused for human input, `partial`, its thread `interrupted` —, …), so it is any
 * non-empty string: a new guard must not need a new major version to report itself.
 */
export const StopReason = Type.Object(
  {
    reason: Type.String({ minLength: 1 }),
    by: Type.String({ minLength: 1 }),
    turn: Type.Optional(Type.Integer({ minimum: 0 })),
    detail: Type.Optional(Type.String()),
    limit: Type.Optional(StopLimit),
  },
  { additionalProperties: false },
);
export type StopReason = Static<typeof StopReason>;

export const StatusError = Type.Object(
  { type: Type.String({ minLength: 1 }), message: Type.String(), retryable: Type.Boolean() },
  { additionalProperties: false },
);
export type StatusError = Static<typeof StatusError>;

/** The outcome fields every result shares (status@2, and subagent-return@1 after its own `contract`/`version`). */
export const OutcomeFields = {
  status: Type.Enum(RUN_STATUSES),
  stopReasons: Type.Array(StopReason),
  primaryStopReason: Type.Optional(Type.String({ minLength: 1 })),
  text: Type.String(),
  error: Type.Optional(StatusError),
  resultSha256: Type.Optional(Sha256Hex),
  usage: Type.Optional(Usage),
};

export const StatusV2 = Type.Object({ contract: Type.Literal("status"), version: Type.Literal(2), ...OutcomeFields }, { additionalProperties: false });
export type StatusV2 = Static<typeof StatusV2>;

export default defineContract("status", 2, "Keel status: the outcome of a run or subagent", StatusV2);
