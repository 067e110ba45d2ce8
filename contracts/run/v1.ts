import Type, { type Static } from "typebox";
import { defineContract } from "../define.js";
import { IsoDateTime } from "../shared.js";
import { StatusV2, type RunStatus } from "../status/v2.js";

/** LangGraph Platform's run statuses: what the wire shows (`outcome` is the honest result). */
export const RUN_RECORD_STATUSES = ["pending", "running", "success", "error", "timeout", "interrupted"] as const;
export type RunRecordStatus = (typeof RUN_RECORD_STATUSES)[number];

/** LangGraph Platform's strategies for a new run on a thread that already has one. */
export const MULTITASK_STRATEGIES = ["reject", "interrupt", "rollback", "enqueue"] as const;
export type MultitaskStrategy = (typeof MULTITASK_STRATEGIES)[number];

/** `status` of a finished run, from its outcome: a capped run is `success` with `outcome.status = "partial"`. */
export const RUN_STATUS_OF_OUTCOME: Readonly<Record<RunStatus, RunRecordStatus>> = Object.freeze({
  succeeded: "success",
  partial: "success",
  failed: "error",
  timed_out: "timeout",
  cancelled: "interrupted",
});

/** A run record (camelCase here; over HTTP the same fields in LangGraph's snake_case plus `outcome`). */
export const RunV1 = Type.Object(
  {
    runId: Type.String({ minLength: 1 }),
    threadId: Type.String({ minLength: 1 }),
    assistantId: Type.String({ minLength: 1 }),
    status: Type.Enum(RUN_RECORD_STATUSES),
    outcome: Type.Optional(StatusV2),
    multitaskStrategy: Type.Enum(MULTITASK_STRATEGIES),
    owner: Type.Optional(Type.String({ minLength: 1 })),
    epoch: Type.Integer({ minimum: 0 }),
    leaseExpiresAt: Type.Optional(IsoDateTime),
    createdAt: IsoDateTime,
    updatedAt: IsoDateTime,
  },
  { additionalProperties: false },
);
export type RunV1 = Static<typeof RunV1>;

export default defineContract("run", 1, "Keel run record", RunV1);
