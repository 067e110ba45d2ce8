import { SystemMessage, type BaseMessage, type MessageContent } from "@langchain/core/messages";

/** Said wherever a delegation's status is read: the lead's prompt, the `task` tool, the ledger heading. */
export const COMPLETION_NOTE = "Completed means execution ended, not task acceptance";

/** What to do with a task that ended with unmet or UNVERIFIED acceptance criteria. */
export const GAP_GUIDANCE =
  "retain the useful work, repair only the remaining gaps, verify the load-bearing UNVERIFIED criteria or preserve the uncertainty in your answer, and respect the remaining budget";

/** The delegation section this plugin adds to the lead's system message (in each request, never in the thread). */
export const DELEGATION_SECTION = [
  "## Delegation (the `task` tool)",
  `- ${COMPLETION_NOTE}: a task that \`succeeded\` ran to its end with a result; whether the task is done is what its evidence shows.`,
  "- Read each result's evidence: its citations (execution evidence only: a call happened, not that the claim is correct) and its acceptance checklist (`holds`, `does not hold`, `UNVERIFIED`).",
  `- A task that ended with unmet or UNVERIFIED criteria: ${GAP_GUIDANCE}. Do not redo work that holds.`,
  "- Do not delegate again work the delegation ledger lists as in progress.",
].join("\n");

function appendText(content: MessageContent, text: string): MessageContent {
  if (typeof content === "string") return content.trim() ? `${content}\n\n${text}` : text;
  return [...(content as Array<Record<string, unknown>>), { type: "text", text }] as MessageContent;
}

/**
 * The request's messages with the delegation section appended to the leading system message
 * (a new message: the thread's own is never edited), or a system message created for it.
 */
export function withDelegationSection(messages: readonly BaseMessage[]): BaseMessage[] {
  const first = messages[0];
  if (!first || !SystemMessage.isInstance(first)) return [new SystemMessage(DELEGATION_SECTION), ...messages];
  const system = new SystemMessage({
    content: appendText(first.content, DELEGATION_SECTION),
    additional_kwargs: first.additional_kwargs,
    response_metadata: first.response_metadata,
    ...(first.id ? { id: first.id } : {}),
    ...(first.name ? { name: first.name } : {}),
  });
  return [system, ...messages.slice(1)];
}
