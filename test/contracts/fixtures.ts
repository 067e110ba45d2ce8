/** One realistic valid payload per contract, shared by the contract tests. */
export const SHA = "a".repeat(64);

export const validStatus = {
  contract: "status",
  version: 2,
  status: "partial",
  stopReasons: [
    { reason: "turn_capped", by: "kernel", turn: 150, limit: { type: "turns", value: 150 } },
    { reason: "loop_capped", by: "loop-detection", detail: "same call 5 times" },
  ],
  primaryStopReason: "loop_capped",
  text: "Tides are driven by the moon.",
  resultSha256: SHA,
  usage: { inputTokens: 900, outputTokens: 40, totalTokens: 940 },
};

export const validScenario = {
  contract: "scenario",
  version: 1,
  name: "incident-loop",
  stack: "lead",
  config: { "loop-detection": { hardLimit: 5 } },
  subagentConfig: { "token-budget": { maxTokens: 1000 } },
  maxTurns: 150,
  input: "Write one sentence about tides.",
  workspace: { files: { "notes.md": "Tides follow the moon." } },
  agents: {
    lead: {
      turns: [
        {
          toolCalls: [{ name: "task", id: "t1", args: { description: "tides", prompt: "Read notes.md", subagentType: "general-purpose" } }],
          usage: { input_tokens: 900, output_tokens: 40 },
        },
        { content: "Done.", finishReason: "stop", provider: "anthropic" },
      ],
      then: "stop",
    },
    "general-purpose": { turns: [{ toolCalls: [{ name: "read_file", args: { path: "notes.md" } }] }], then: "repeat-last" },
  },
  bash: [{ match: "npm test", output: "Tests  12 passed (12)", exitCode: 0 }, { match: "/^ls/", output: "notes.md" }],
  faults: [
    { agent: "lead", turn: 3, times: 2, error: { status: 429, message: "rate limited" } },
    { agent: "general-purpose", turn: 1, times: "always", kind: "hang" },
  ],
};

export const validStreamEvents = [
  { id: "1700000000000-0", runId: "run-1", event: "metadata", data: { run_id: "run-1", thread_id: "th-1", attempt: 1 } },
  { id: "1700000000000-1", runId: "run-1", event: "values", data: { messages: [] } },
  { id: "1700000000001-2", runId: "run-1", event: "messages", data: [{ content: "Hi" }, { langgraph_node: "model" }] },
  { id: "1700000000001-3", runId: "run-1", event: "guard", data: { plugin: "loop-detection", action: "warn", reason: "loop_warned", agent: "lead" } },
  {
    id: "1700000000002-4",
    runId: "run-1",
    event: "task",
    data: { phase: "terminal", taskId: "t1", agent: "lead/t1", subagentType: "general-purpose", status: "succeeded", usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 } },
  },
  {
    id: "1700000000003-5",
    runId: "run-1",
    event: "gap",
    data: { code: "stream_replay_gap", requested: "1-0", earliest: "1700000000000-9", latest: null, recovery: "reload_durable_state" },
  },
  { id: "1700000000004-6", runId: "run-1", event: "end", data: null },
];

export const validJournalEntry = {
  seq: 3,
  at: "2024-01-01T00:00:00.000Z",
  runId: "run-1",
  agent: "lead/t1",
  turn: 2,
  kind: "tool_call",
  name: "read_file",
  status: "success",
  argsSha256: "0123456789abcdef",
  outputSha256: SHA,
  durationMs: 1.5,
};

export const validRunReport = {
  contract: "run-report",
  version: 1,
  scenario: "incident-loop",
  threadId: "th-1",
  runId: "run-1",
  outcome: { contract: "status", version: 2, status: "succeeded", stopReasons: [], text: "Done." },
  turns: { lead: 2, "lead/t1": 6, total: 8 },
  usage: {
    inputTokens: 10,
    outputTokens: 5,
    totalTokens: 15,
    byAgent: { lead: { inputTokens: 10, outputTokens: 5, totalTokens: 15 } },
  },
  delegations: [{ id: "t1", runId: "run-1", status: "succeeded" }],
  receipts: { lead: [{ id: "r1", toolCallId: "t1", tool: "task" }], "lead/t1": [] },
  modelRequests: [
    {
      agent: "lead",
      turn: 1,
      messages: [
        { role: "system", content: "You are the lead.", hidden: false },
        { role: "user", content: "Write one sentence about tides.", hidden: false },
      ],
      tools: ["read_file", "task"],
    },
  ],
  messages: [
    { role: "user", content: "Write one sentence about tides.", hidden: false },
    { role: "assistant", content: "", hidden: false, toolCalls: [{ id: "t1", name: "task", args: { description: "tides" } }] },
    { role: "tool", content: "ok", hidden: false, toolCallId: "t1", status: "success" },
    { role: "assistant", content: "Done.", hidden: false },
  ],
  events: validStreamEvents,
  workspace: { files: { "report.md": { bytes: 120, sha256: SHA } } },
  composition: { lead: ["sanitize", "loop-detection"], subagent: ["sanitize"] },
};

/** The same report as run-report@2: a second lead request stored against the first. */
export const validRunReportV2 = {
  ...validRunReport,
  version: 2,
  modelRequests: [
    ...validRunReport.modelRequests,
    {
      agent: "lead",
      turn: 2,
      base: 0,
      parts: [{ copy: [0, 2] }, { role: "assistant", content: "", hidden: false, toolCalls: [{ id: "t1", name: "task", args: { description: "tides" } }] }],
    },
  ],
};

export const validManifest = {
  name: "loop-detection",
  version: "1.0.0",
  kind: "middleware",
  kernel: "^0.1.0",
  description: "Stops repeated identical tool calls.",
  hooks: { afterModel: { observes: ["messages"], mutates: ["messages", "stopReasons"] } },
  channels: { loop: { schema: { type: "object" }, reducer: "replace" } },
  contracts: { produces: ["status@2"] },
};

export const validStack = {
  name: "lead",
  plugins: ["sanitize", { name: "loop-detection", config: { hardLimit: 5 } }, { module: "./probe.js" }],
  order: [["sanitize", "loop-detection"]],
  subagentStack: { name: "child", plugins: ["sanitize"] },
};
