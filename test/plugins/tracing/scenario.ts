import type { ScenarioV1 } from "../../../contracts/scenario/v1.js";

/** Usage each scripted model call reports: the spans must carry exactly these numbers. */
export const USAGE = {
  leadDelegates: { input_tokens: 101, output_tokens: 11 },
  leadAnswers: { input_tokens: 303, output_tokens: 33 },
  childReads: { input_tokens: 51, output_tokens: 5 },
  childReturns: { input_tokens: 77, output_tokens: 7 },
};

/** A lead that delegates one task (`task-1`) to a child that reads a file and returns. */
export const DELEGATING_SCENARIO = {
  contract: "scenario",
  version: 1,
  name: "tracing: one delegated task",
  stack: "lead",
  input: "Report what notes.md says.",
  workspace: { files: { "notes.md": "High tide 06:12.\n" } },
  agents: {
    lead: {
      turns: [
        { usage: USAGE.leadDelegates, toolCalls: [{ name: "task", id: "task-1", args: { description: "read the notes", prompt: "Read notes.md and report the tide.", subagentType: "reader" } }] },
        { usage: USAGE.leadAnswers, content: "High tide is at 06:12." },
      ],
    },
    reader: {
      turns: [
        { usage: USAGE.childReads, toolCalls: [{ name: "read_file", id: "read-1", args: { path: "notes.md" } }] },
        { usage: USAGE.childReturns, toolCalls: [{ name: "return_result", id: "return-1", args: { status: "succeeded", text: "High tide 06:12.", completedSteps: ["read notes.md"], missingSteps: [] } }] },
      ],
    },
  },
} as unknown as ScenarioV1;
