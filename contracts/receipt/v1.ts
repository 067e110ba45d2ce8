import Type, { type Static } from "typebox";
import { defineContract } from "../define.js";
import { IsoDateTime } from "../shared.js";

export const RECEIPT_STATUSES = ["success", "error"] as const;

/** `r1`, `r2`, … in order per agent run. */
export const ReceiptId = Type.String({ pattern: "^r[1-9]\\d*$" });

/** The first 16 hex digits of a SHA-256. */
export const ShortSha256 = Type.String({ pattern: "^[0-9a-f]{16}$" });

/** Written only by the runtime (the receipts plugin), never by a tool. */
export const ReceiptV1 = Type.Object(
  {
    id: ReceiptId,
    toolCallId: Type.String({ minLength: 1 }),
    tool: Type.String({ minLength: 1 }),
    status: Type.Enum(RECEIPT_STATUSES),
    argsSha256: ShortSha256,
    outputSha256: ShortSha256,
    bytes: Type.Integer({ minimum: 0 }),
    createdAt: IsoDateTime,
    /**
     * The human decision the call ran (or was refused) under, when a human-approval policy
     * covered it: the decision, who made it (the run's user) and when.
     */
    approval: Type.Optional(
      Type.Object(
        {
          decision: Type.Enum(["approve", "edit", "reject"] as const),
          by: Type.Optional(Type.String({ minLength: 1 })),
          at: IsoDateTime,
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
export type ReceiptV1 = Static<typeof ReceiptV1>;

export default defineContract("receipt", 1, "Keel receipt: one tool call's execution record", ReceiptV1);
