import Type, { type Static } from "typebox";
import { defineContract } from "../define.js";

const Ids = Type.Array(Type.String({ minLength: 1 }));

export const FailedCitation = Type.Object(
  { id: Type.String({ minLength: 1 }), reason: Type.String({ minLength: 1 }) },
  { additionalProperties: false },
);
export type FailedCitation = Static<typeof FailedCitation>;

/** Citations in a report checked against the receipts shown to the agent (plugins/receipts/README.md). */
export const ReceiptVerdictV1 = Type.Object(
  {
    source: Type.Literal("receipt_citations"),
    citationResolved: Type.Boolean(),
    cited: Ids,
    resolved: Ids,
    failed: Type.Array(FailedCitation),
    unknown: Ids,
    noCitationClaims: Type.Boolean(),
  },
  { additionalProperties: false },
);
export type ReceiptVerdictV1 = Static<typeof ReceiptVerdictV1>;

export default defineContract("receipt-verdict", 1, "Keel receipt verdict: report citations checked against receipts", ReceiptVerdictV1);
