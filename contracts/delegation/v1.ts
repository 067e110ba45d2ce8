import Type, { type Static } from "typebox";
import { AcceptanceVerdictV1 } from "../acceptance-verdict/v1.js";
import { defineContract } from "../define.js";
import { ReceiptVerdictV1 } from "../receipt-verdict/v1.js";
import { IsoDateTime, Sha256Hex, Usage } from "../shared.js";
import { RESULT_BRIEF_CHARS } from "../status/v1.js";
import { StopReason } from "../status/v2.js";

export const DELEGATION_STATUSES = ["in_progress", "succeeded", "partial", "failed", "cancelled", "timed_out"] as const;
export type DelegationStatus = (typeof DELEGATION_STATUSES)[number];

export const DESCRIPTION_CHARS = 200;

/**
 * The lease a delegation ran under; a terminal write must carry a current `epoch`.
 * `parentEpoch`: the parent run's lease epoch the entry was written under.
 */
export const DelegationLease = Type.Object(
  { leaseId: Type.String({ minLength: 1 }), epoch: Type.Integer({ minimum: 0 }), expiresAt: IsoDateTime, parentEpoch: Type.Optional(Type.Integer({ minimum: 0 })) },
  { additionalProperties: false },
);
export type DelegationLease = Static<typeof DelegationLease>;

/**
 * One entry of the `delegations` ledger, keyed by the `task` tool call id. `resultBrief`
 * is at most 2,000 characters (a longer result keeps its first 1,330 and last 665
 * characters around `\n...\n`); `resultSha256` hashes the child's own text (its report),
 * not the display text around it. `receiptVerdict` and `acceptanceVerdict` are the evidence
 * checks; their one-line summaries are rendered from them, never stored in the text.
 */
export const DelegationV1 = Type.Object(
  {
    id: Type.String({ minLength: 1 }),
    runId: Type.String({ minLength: 1 }),
    description: Type.String({ maxLength: DESCRIPTION_CHARS }),
    subagentType: Type.String({ minLength: 1 }),
    status: Type.Enum(DELEGATION_STATUSES),
    resultBrief: Type.Optional(Type.String({ maxLength: RESULT_BRIEF_CHARS })),
    resultSha256: Type.Optional(Sha256Hex),
    stopReasons: Type.Optional(Type.Array(StopReason)),
    usage: Type.Optional(Usage),
    receiptVerdict: Type.Optional(ReceiptVerdictV1),
    acceptanceVerdict: Type.Optional(AcceptanceVerdictV1),
    schemaValid: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
    lease: Type.Optional(DelegationLease),
    createdAt: IsoDateTime,
  },
  { additionalProperties: false },
);
export type DelegationV1 = Static<typeof DelegationV1>;

export default defineContract("delegation", 1, "Keel delegation: one delegation ledger entry", DelegationV1);
