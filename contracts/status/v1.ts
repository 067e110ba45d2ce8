import Type, { type Static } from "typebox";
import { defineContract } from "../define.js";
import { Sha256Hex, Usage } from "../shared.js";

/**
 * `max_turns_reached` is legacy and read only: `upgrade` reads it (status@1)
 * but `project` never writes it.
 */
export const LEGACY_STATUSES = ["completed", "failed", "cancelled", "timed_out", "polling_timed_out", "max_turns_reached"] as const;
export type LegacyStatus = (typeof LEGACY_STATUSES)[number];

export const LEGACY_STOP_REASONS = ["token_capped", "turn_capped", "loop_capped"] as const;
export type LegacyStopReason = (typeof LEGACY_STOP_REASONS)[number];

/** A brief longer than this is cut (head and tail kept) by whoever writes it. */
export const RESULT_BRIEF_CHARS = 2000;

/** No `contract`/`version` fields: status@1 is DeerFlow's wire shape, which carries none. */
export const StatusV1 = Type.Object(
  {
    status: Type.Enum(LEGACY_STATUSES),
    stopReason: Type.Optional(Type.Enum(LEGACY_STOP_REASONS)),
    error: Type.Optional(Type.String()),
    resultBrief: Type.Optional(Type.String({ maxLength: RESULT_BRIEF_CHARS })),
    resultSha256: Type.Optional(Sha256Hex),
    tokenUsage: Type.Optional(Usage),
  },
  { additionalProperties: false },
);
export type StatusV1 = Static<typeof StatusV1>;

export default defineContract("status", 1, "Keel status (legacy, DeerFlow wire-compatible subagent status)", StatusV1);
