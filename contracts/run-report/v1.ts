import Type, { type Static } from "typebox";
import { defineContract } from "../define.js";
import { Sha256Hex, Usage } from "../shared.js";
import { StatusV2 } from "../status/v2.js";
import { StreamEventV1 } from "../stream-event/v1.js";

/** Stands in for delegation@1 / receipt@1 entries until those contracts are published. */
const OpenEntry = Type.Record(Type.String(), Type.Unknown());

export const ReportToolCall = Type.Object(
  { id: Type.String({ minLength: 1 }), name: Type.String({ minLength: 1 }), args: Type.Record(Type.String(), Type.Unknown()) },
  { additionalProperties: false },
);
export type ReportToolCall = Static<typeof ReportToolCall>;

export const ReportMessage = Type.Object(
  {
    role: Type.Enum(["system", "user", "assistant", "tool"]),
    content: Type.String(),
    hidden: Type.Boolean(),
    toolCalls: Type.Optional(Type.Array(ReportToolCall)),
    toolCallId: Type.Optional(Type.String({ minLength: 1 })),
    status: Type.Optional(Type.Enum(["success", "error"])),
  },
  { additionalProperties: false },
);
export type ReportMessage = Static<typeof ReportMessage>;

export const ModelRequest = Type.Object(
  {
    agent: Type.String({ minLength: 1 }),
    turn: Type.Integer({ minimum: 1 }),
    messages: Type.Array(ReportMessage),
    tools: Type.Array(Type.String({ minLength: 1 })),
  },
  { additionalProperties: false },
);
export type ModelRequest = Static<typeof ModelRequest>;

const Count = Type.Integer({ minimum: 0 });

/** Model calls per agent path, plus `total`. */
export const TurnCounts = Type.Unsafe<{ total: number } & Record<string, number>>(
  Type.Object({ total: Count }, { additionalProperties: Count }),
);
export type TurnCounts = Static<typeof TurnCounts>;

export const ReportUsage = Type.Object(
  {
    inputTokens: Count,
    outputTokens: Count,
    totalTokens: Count,
    byAgent: Type.Record(Type.String(), Usage),
  },
  { additionalProperties: false },
);
export type ReportUsage = Static<typeof ReportUsage>;

export const WorkspaceFile = Type.Object({ bytes: Count, sha256: Sha256Hex }, { additionalProperties: false });
export type WorkspaceFile = Static<typeof WorkspaceFile>;

/** What the run store's journal lacks because writing it failed (the report itself is complete). */
export const JournalGap = Type.Object(
  {
    failedWrites: Type.Integer({ minimum: 1 }),
    unwrittenEntries: Type.Integer({ minimum: 1 }),
    firstError: Type.String(),
  },
  { additionalProperties: false },
);
export type JournalGap = Static<typeof JournalGap>;

export const RunReportV1 = Type.Object(
  {
    contract: Type.Literal("run-report"),
    version: Type.Literal(1),
    scenario: Type.String({ minLength: 1 }),
    threadId: Type.String({ minLength: 1 }),
    runId: Type.String({ minLength: 1 }),
    outcome: StatusV2,
    turns: TurnCounts,
    usage: ReportUsage,
    delegations: Type.Array(OpenEntry),
    receipts: Type.Record(Type.String(), Type.Array(OpenEntry)),
    modelRequests: Type.Array(ModelRequest),
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
export type RunReportV1 = Static<typeof RunReportV1>;

export default defineContract("run-report", 1, "Keel run report: what a run did, for tests and inspection", RunReportV1);
