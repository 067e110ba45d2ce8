/** One realistic valid payload per contract added after the first set (fixtures.ts has the others). */
type Json = Record<string, any>;

const SHA = "b".repeat(64);
const usage = { inputTokens: 1200, outputTokens: 80, totalTokens: 1280 };

const receiptVerdict = {
  source: "receipt_citations",
  citationResolved: false,
  cited: ["r1", "r2", "r7"],
  resolved: ["r1"],
  failed: [{ id: "r2", reason: "anchor mismatch: cited as bash, receipt r2 is write_file" }],
  unknown: ["r7"],
  noCitationClaims: false,
};

const acceptanceVerdict = {
  source: "acceptance_checklist",
  leaves: [
    { criterion: "file:report.md exists", family: "file", checked: true, holds: true, detail: "exists, 120 bytes" },
    { criterion: "tests_passed:npm test", family: "tests_passed", checked: false, holds: false, detail: "no bash run of `npm test`" },
  ],
  unchecked: ["tests_passed:npm test"],
  allHold: false,
};

export const moreValidPayloads: Record<string, Json> = {
  "status@1": { status: "completed", stopReason: "token_capped", resultBrief: "Half the table.", resultSha256: SHA, tokenUsage: usage },
  "subagent-return@1": {
    contract: "subagent-return",
    version: 1,
    status: "partial",
    stopReasons: [{ reason: "token_capped", by: "token-budget", limit: { type: "tokens", value: 500000 } }],
    primaryStopReason: "token_capped",
    text: "Filled 8 of 12 rows.",
    usage,
    reason: "token budget reached",
    limit: { type: "tokens", value: 500000 },
    stoppedAtStep: "fill rows 9-12",
    completedSteps: ["fetch data", "fill rows 1-8"],
    missingSteps: ["fill rows 9-12"],
    payload: { rows: 8 },
    verification: { type: "rows", expected: 12, found: 8 },
    suggestions: ["re-run for rows 9-12"],
    retryable: true,
    schemaValid: null,
    callerNextAction: "merge the table",
    criticalPath: ["fetch data"],
  },
  "receipt@1": {
    id: "r12",
    toolCallId: "call_abc",
    tool: "write_file",
    status: "success",
    argsSha256: "0123456789abcdef",
    outputSha256: "fedcba9876543210",
    bytes: 42,
    createdAt: "2026-01-02T03:04:05.000Z",
  },
  "receipt-verdict@1": receiptVerdict,
  "acceptance-verdict@1": acceptanceVerdict,
  "delegation@1": {
    id: "call_task_1",
    runId: "run-1",
    description: "Summarize the tide notes",
    subagentType: "general-purpose",
    status: "partial",
    resultBrief: "Tides follow the moon.",
    resultSha256: SHA,
    stopReasons: [{ reason: "turn_capped", by: "kernel", turn: 150 }],
    usage,
    receiptVerdict,
    acceptanceVerdict,
    schemaValid: false,
    lease: { leaseId: "lease-1", epoch: 2, expiresAt: "2026-01-02T03:05:05Z" },
    createdAt: "2026-01-02T03:04:05Z",
  },
  "lease@1": {
    leaseId: "lease-1",
    runId: "run-1",
    taskId: "call_task_1",
    owner: "worker-a",
    epoch: 0,
    tokenAllowance: 500000,
    returnReserve: 75000,
    grantedAt: "2026-01-02T03:04:05Z",
    expiresAt: "2026-01-02T03:05:05Z",
    state: "active",
  },
  "run@1": {
    runId: "run-1",
    threadId: "thread-1",
    assistantId: "lead",
    status: "success",
    outcome: { contract: "status", version: 2, status: "partial", stopReasons: [{ reason: "turn_capped", by: "kernel" }], text: "Done." },
    multitaskStrategy: "reject",
    owner: "worker-a",
    epoch: 1,
    leaseExpiresAt: "2026-01-02T03:05:05Z",
    createdAt: "2026-01-02T03:04:05Z",
    updatedAt: "2026-01-02T03:06:05Z",
  },
};

