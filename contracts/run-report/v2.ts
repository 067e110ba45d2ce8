import Type, { type Static } from "typebox";
import { defineContract } from "../define.js";
import { StatusV2 } from "../status/v2.js";
import { StreamEventV1 } from "../stream-event/v1.js";
import { JournalGap, ModelRequest, ReportMessage, ReportUsage, TurnCounts, WorkspaceFile } from "./v1.js";

/** Stands in for delegation@1 / receipt@1 entries, as in run-report@1. */
const OpenEntry = Type.Record(Type.String(), Type.Unknown());
const Index = Type.Integer({ minimum: 0 });

/** `{ copy: [start, count] }`: `count` messages of the base request, from its message `start` (0-based). */
export const CopiedMessages = Type.Object(
  { copy: Type.Unsafe<[number, number]>({
    type: "array",
    prefixItems: [{ type: "integer", minimum: 0 }, { type: "integer", minimum: 1 }],
    items: false,
    minItems: 2,
    maxItems: 2,
  }) },
  { additionalProperties: false },
);
export type CopiedMessages = Static<typeof CopiedMessages>;

/**
 * A model request stored against an earlier one (`base`, an index into `modelRequests`):
 * its messages are `parts` in order, each either a message or a run of the base's messages
 * (`{ copy: [start, count] }`). `tools` is left out when it equals the base's.
 */
export const ModelRequestDelta = Type.Object(
  {
    agent: Type.String({ minLength: 1 }),
    turn: Type.Integer({ minimum: 1 }),
    base: Index,
    parts: Type.Array(Type.Union([ReportMessage, CopiedMessages])),
    tools: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
  },
  { additionalProperties: false },
);
export type ModelRequestDelta = Static<typeof ModelRequestDelta>;

/** A model request of run-report@2: whole (run-report@1's shape) or a delta against an earlier request. */
export const ModelRequestV2 = Type.Union([ModelRequest, ModelRequestDelta]);
export type ModelRequestV2 = Static<typeof ModelRequestV2>;

/**
 * run-report@2: run-report@1 with `modelRequests` stored as deltas, so the report of a long
 * run grows linearly in its turns instead of quadratically. Every other field is as in @1;
 * `project` (contracts/run-report/migrate.ts) expands it back to @1 with nothing lost.
 */
export const RunReportV2 = Type.Object(
  {
    contract: Type.Literal("run-report"),
    version: Type.Literal(2),
    scenario: Type.String({ minLength: 1 }),
    threadId: Type.String({ minLength: 1 }),
    runId: Type.String({ minLength: 1 }),
    outcome: StatusV2,
    turns: TurnCounts,
    usage: ReportUsage,
    delegations: Type.Array(OpenEntry),
    receipts: Type.Record(Type.String(), Type.Array(OpenEntry)),
    modelRequests: Type.Array(ModelRequestV2),
    messages: Type.Array(ReportMessage),
    events: Type.Array(StreamEventV1),
    workspace: Type.Object({ files: Type.Record(Type.String(), WorkspaceFile) }, { additionalProperties: false }),
    composition: Type.Object(
      { lead: Type.Array(Type.String({ minLength: 1 })), subagent: Type.Optional(Type.Array(Type.String({ minLength: 1 }))) },
      { additionalProperties: false },
    ),
    /** Present (true) only when the run service could not write the whole journal; `journalGap` says what is missing. */
    journalIncomplete: Type.Optional(Type.Literal(true)),
    journalGap: Type.Optional(JournalGap),
  },
  { additionalProperties: false },
);
export type RunReportV2 = Static<typeof RunReportV2>;

export default defineContract("run-report", 2, "Keel run report: what a run did, model requests stored as deltas", RunReportV2);
