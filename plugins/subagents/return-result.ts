import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { validateAgainst } from "../../contracts/ajv.js";
import type { KeelTool } from "../../kernel/plugin/types.js";

export const RETURN_RESULT_TOOL = "return_result";

/** What the child fills in (plugins/subagents/README.md); the runtime adds the rest of subagent-return@1. */
export interface ReturnArgs {
  status: "succeeded" | "partial" | "failed";
  text: string;
  payload?: unknown;
  completedSteps?: string[];
  missingSteps?: string[];
  stoppedAtStep?: string;
  verification?: { type: string; expected: number; found: number };
  suggestions?: string[];
  retryable?: boolean;
  reason?: string;
}

const steps = { type: "array", items: { type: "string", minLength: 1 } } as const;

export const returnResultSchema = {
  type: "object",
  additionalProperties: false,
  required: ["status", "text"],
  properties: {
    status: { enum: ["succeeded", "partial", "failed"], description: "What you achieved. Claim `succeeded` only when every deliverable is done and verifiable." },
    text: {
      type: "string",
      description: "Your report: cite [rN tool] for every action you claim, a verifiable handle for every deliverable, and what failed, was skipped or is uncertain.",
    },
    payload: { description: "The structured result; must match the caller's output schema when one was given." },
    completedSteps: { ...steps, description: "Steps you completed (the inventory; required for a partial result to be accepted)." },
    missingSteps: { ...steps, description: "Steps not done (the inventory; required for a partial result to be accepted)." },
    stoppedAtStep: { type: "string", minLength: 1, description: "The step you were on when you stopped." },
    verification: {
      type: "object",
      additionalProperties: false,
      required: ["type", "expected", "found"],
      properties: { type: { type: "string", minLength: 1 }, expected: { type: "number" }, found: { type: "number" } },
      description: "A handle the caller can check, e.g. { type: \"rows\", expected: 12, found: 12 }.",
    },
    suggestions: { type: "array", items: { type: "string" }, description: "What the caller could do next." },
    retryable: { type: "boolean", description: "Whether retrying the same task could succeed." },
    reason: { type: "string", minLength: 1, description: "Why the result is partial or failed." },
  },
} as const;

/** Problems with `return_result` arguments, or [] when they are valid. */
export function returnArgsProblems(args: unknown): string[] {
  const result = validateAgainst(returnResultSchema, args);
  return result.valid ? [] : result.errors.map((e) => `${e.pointer || "/"}: ${e.message}`);
}

/** The `text` argument's description when the child has no receipts to cite. */
const HANDLE_TEXT =
  "Your report: a verifiable handle (file path, URL, record id, HTTP status, command and output) for every action you claim and every deliverable, and what failed, was skipped or is uncertain. No [rN] citations: this run keeps no receipts.";

/**
 * Given to every child. A successful call ends the child after that tools step (a terminal
 * tool); invalid arguments get an error result, so the child can fix them and call again.
 * `receipts`: whether the child's tool calls get receipts, which its report then cites.
 */
export function returnResultToolFor(receipts: boolean): KeelTool {
  const schema = receipts
    ? returnResultSchema
    : { ...returnResultSchema, properties: { ...returnResultSchema.properties, text: { type: "string", description: HANDLE_TEXT } } };
  return {
    name: RETURN_RESULT_TOOL,
    description:
      "Hand your result back to the caller and end your run. Call it exactly once, when you are done or must stop: with status, your report text, and the inventory of completed and missing steps.",
    schema: schema as unknown as Record<string, unknown>,
    invoke(args) {
      const problems = returnArgsProblems(args);
      if (problems.length > 0) return { content: `return_result rejected: ${problems.join("; ")}. Fix the arguments and call return_result again.`, status: "error" };
      return "Result recorded; your run ends now.";
    },
  };
}

/** `return_result` for a child whose tool calls get receipts (the default stacks). */
export const returnResultTool: KeelTool = returnResultToolFor(true);

export interface FoundReturn {
  args: ReturnArgs;
  /** The assistant message that made the call (its `keel.receiptIds` are the receipts the report could cite). */
  message: AIMessage;
}

/** The child's last `return_result` call that got a successful result, with valid arguments. */
export function findReturn(messages: readonly BaseMessage[]): FoundReturn | null {
  const succeeded = new Set(
    messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m) && m.status !== "error").map((m) => m.tool_call_id),
  );
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (!AIMessage.isInstance(message)) continue;
    const calls = (message.tool_calls ?? []).filter((c) => c.name === RETURN_RESULT_TOOL && c.id !== undefined && succeeded.has(c.id));
    for (const call of calls.reverse()) {
      if (returnArgsProblems(call.args).length === 0) return { args: call.args as ReturnArgs, message };
    }
  }
  return null;
}
