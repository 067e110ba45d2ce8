import Type, { type Static } from "typebox";
import { defineContract } from "../define.js";
import { IsoDateTime, Usage } from "../shared.js";

export const JOURNAL_KINDS = ["model_call", "tool_call", "guard", "lifecycle", "approval"] as const;

/** Receipts hash to 16 hex digits, full hashes are 64; the journal carries either. */
const HexHash = Type.String({ pattern: "^(?:[0-9a-f]{16}|[0-9a-f]{64})$" });

export const JournalEntryV1 = Type.Object(
  {
    seq: Type.Integer({ minimum: 0 }),
    at: IsoDateTime,
    runId: Type.String({ minLength: 1 }),
    agent: Type.String({ minLength: 1 }),
    turn: Type.Integer({ minimum: 0 }),
    kind: Type.Enum(JOURNAL_KINDS),
    name: Type.Optional(Type.String({ minLength: 1 })),
    status: Type.String({ minLength: 1 }),
    argsSha256: Type.Optional(HexHash),
    outputSha256: Type.Optional(HexHash),
    usage: Type.Optional(Usage),
    durationMs: Type.Number({ minimum: 0 }),
    /** A `retry` guard entry: the delay scheduled before the next attempt, in ms. */
    retryInMs: Type.Optional(Type.Integer({ minimum: 0 })),
    /** The run's lease epoch the entry was written under (a delegated child's entries: its parent run's). */
    epoch: Type.Optional(Type.Integer({ minimum: 0 })),
    /** A delegated child's entry: the epoch of the child's own delegation lease (lease@1). */
    leaseEpoch: Type.Optional(Type.Integer({ minimum: 0 })),
    /** An `approval` entry (human-approval): the tool call it is about. */
    toolCallId: Type.Optional(Type.String({ minLength: 1 })),
    /** An `approval` entry: who decided (the run's user). */
    by: Type.Optional(Type.String({ minLength: 1 })),
  },
  { additionalProperties: false },
);
export type JournalEntryV1 = Static<typeof JournalEntryV1>;

export default defineContract("journal-entry", 1, "Keel journal entry: one journaled step", JournalEntryV1);
