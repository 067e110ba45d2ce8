import { compileSchema, validateAgainst } from "../../contracts/ajv.js";
import type { KeelTool } from "../../kernel/plugin/types.js";
import { COMPLETION_NOTE } from "./lead-prompt.js";

export const TASK_TOOL = "task";

/** The `task` tool's arguments (plugins/subagents/README.md). */
export interface TaskArgs {
  description: string;
  prompt: string;
  subagentType: string;
  acceptanceCriteria?: string[];
  callerNextAction?: string;
  criticalPath?: string[];
  outputSchema?: Record<string, unknown>;
}

export const taskArgsSchema = {
  type: "object",
  additionalProperties: false,
  required: ["description", "prompt", "subagentType"],
  properties: {
    description: { type: "string", minLength: 1, description: "A short (3–10 words) description of the task, shown in the delegation ledger." },
    prompt: { type: "string", minLength: 1, description: "Everything the subagent needs to do the task: it sees nothing of your conversation." },
    subagentType: { type: "string", minLength: 1, description: "Which kind of subagent runs the task (e.g. `general-purpose`)." },
    acceptanceCriteria: {
      type: "array",
      items: { type: "string" },
      description:
        "Deterministically checked after the child ends, one per line: `file:<path> exists`, `file:<path> non-empty`, `file_written:<path>`, `tests_passed:<command>`, `json_valid:<path> <contract>@<version>`; anything else is shown but not checked.",
    },
    callerNextAction: { type: "string", description: "What you will do with the result; the child is told, so it can shape its report." },
    criticalPath: {
      type: "array",
      items: { type: "string", minLength: 1 },
      description: "Steps you cannot do without: a partial result missing any of them is not accepted (it comes back `failed`).",
    },
    outputSchema: { type: "object", description: "JSON Schema the child's `payload` must match; an invalid payload makes the task `failed`." },
  },
} as const;

export type ParsedTaskArgs = { ok: true; args: TaskArgs } | { ok: false; problem: string };

/** Check the arguments, including that `outputSchema` compiles (a broken schema would fail every child). */
export function parseTaskArgs(raw: Record<string, unknown>): ParsedTaskArgs {
  const result = validateAgainst(taskArgsSchema, raw);
  if (!result.valid) return { ok: false, problem: result.errors.map((e) => `${e.pointer || "/"}: ${e.message}`).join("; ") };
  const args = raw as unknown as TaskArgs;
  if (args.outputSchema !== undefined) {
    try {
      compileSchema(args.outputSchema);
    } catch (error) {
      return { ok: false, problem: `/outputSchema: does not compile as JSON Schema (${(error as Error).message})` };
    }
  }
  return { ok: true, args };
}

/**
 * The `task` tool as the model sees it. Its execution is intercepted by the plugin's
 * wrapToolCall, which swaps in a per-call tool that runs the child with the hook's
 * capabilities (state, events, ledger writes); this body only runs when the call reached
 * the tool without that hook (it never starts a child on its own).
 */
export const taskTool: KeelTool = {
  name: TASK_TOOL,
  description:
    "Delegate a self-contained task to a subagent that works in the same workspace and reports back. The result says whether the task succeeded, is partial or failed, with evidence. " +
    `${COMPLETION_NOTE}: \`succeeded\` says the child's run ended with a result; its acceptance checklist and citations say what is evidenced. ` +
    "Several task calls in one message run in parallel (within the run's limits).",
  schema: taskArgsSchema as unknown as Record<string, unknown>,
  invoke: () => ({ content: "The task was not started: delegation is handled by the `subagents` plugin, which did not run this call.", status: "error" }),
};
