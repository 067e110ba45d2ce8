import Type, { type Static } from "typebox";
import { defineContract } from "../define.js";
import { IsoDateTime } from "../shared.js";

export const LEASE_STATES = ["active", "released", "expired", "revoked"] as const;
export type LeaseState = (typeof LEASE_STATES)[number];

const Tokens = Type.Integer({ minimum: 0 });

/**
 * A granted delegation slot (plugins/batch-leasing/README.md). `returnReserve` is in tokens:
 * ⌈tokenAllowance × token-budget's returnReserve fraction⌉. `epoch` grows on every
 * re-grant, so a write carrying a stale epoch can be refused.
 */
export const LeaseV1 = Type.Object(
  {
    leaseId: Type.String({ minLength: 1 }),
    runId: Type.String({ minLength: 1 }),
    taskId: Type.String({ minLength: 1 }),
    owner: Type.String({ minLength: 1 }),
    epoch: Type.Integer({ minimum: 0 }),
    /** The parent run's lease epoch when the lease was granted (absent outside the run service). */
    parentEpoch: Type.Optional(Type.Integer({ minimum: 0 })),
    tokenAllowance: Tokens,
    returnReserve: Tokens,
    grantedAt: IsoDateTime,
    expiresAt: IsoDateTime,
    state: Type.Enum(LEASE_STATES),
  },
  { additionalProperties: false },
);
export type LeaseV1 = Static<typeof LeaseV1>;

export default defineContract("lease", 1, "Keel lease: a granted delegation slot", LeaseV1);
