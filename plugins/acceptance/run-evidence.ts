import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { validate } from "../../contracts/registry.js";
import type { WorkspacePort } from "../../kernel/ports/workspace.js";
import { normalizeCriteria } from "./criteria.js";
import { evaluateAcceptance, type AcceptanceVerdictV1 } from "./evaluate.js";
import { isBashRun, type WorkspaceResolver } from "./evidence.js";
import { readAcceptanceOptions } from "./options.js";

/** Tools whose successful result means a file was written. */
export const WRITING_TOOLS: readonly string[] = ["write_file", "str_replace"];

/**
 * Paths (as given in the tool call's `path` argument) of every `write_file` /
 * `str_replace` call in `messages` whose tool result has status `success`. A refused or
 * failed write (error result) does not count, nor does a call without a result. Tool
 * results are made by the runtime, never by the model, so a claim in text cannot add one.
 *
 * @example
 * filesWrittenFromMessages(result.messages) // ["report.md", "src/a.ts"]
 */
export function filesWrittenFromMessages(messages: readonly BaseMessage[]): string[] {
  const pathsByCall = new Map<string, string>();
  for (const message of messages) {
    if (!AIMessage.isInstance(message)) continue;
    for (const call of message.tool_calls ?? []) {
      const path = (call.args as Record<string, unknown> | undefined)?.path;
      if (call.id && WRITING_TOOLS.includes(call.name) && typeof path === "string") pathsByCall.set(call.id, path);
    }
  }
  const written: string[] = [];
  for (const message of messages) {
    if (!ToolMessage.isInstance(message) || message.status === "error") continue;
    const path = pathsByCall.get(message.tool_call_id);
    if (path !== undefined && !written.includes(path)) written.push(path);
  }
  return written;
}

/** What `evaluateRunAcceptance` needs of a hook context (or of a test). */
export interface RunAcceptanceContext {
  threadId: string;
  /** The workspace port; when absent it is taken from `port("workspace")`. */
  workspace?: WorkspaceResolver;
  port?<T>(name: string): T;
  /** The acceptance plugin's options (defaults when absent). */
  config?: Readonly<Record<string, unknown>>;
}

/** Channel values of a finished run (`RunResult.values`, or a hook's state). */
export interface RunAcceptanceState {
  messages?: unknown;
  bashRuns?: unknown;
}

/**
 * Normalize raw criteria and check them against a run's state: the `bashRuns` channel
 * and the messages (for `file_written:`), with the workspace port and the registry's
 * contract validator.
 *
 * @example
 * const result = await runtime.run({ threadId, runId, input });
 * const { verdict } = await evaluateRunAcceptance(["tests_passed:npm test"], result.values, { threadId, workspace });
 */
export async function evaluateRunAcceptance(
  rawCriteria: readonly unknown[],
  state: RunAcceptanceState,
  ctx: RunAcceptanceContext,
): Promise<{ verdict: AcceptanceVerdictV1; problems: string[] }> {
  const options = readAcceptanceOptions(ctx.config ?? {});
  const { criteria, problems } = normalizeCriteria(rawCriteria, { maxCriteria: options.maxCriteria });
  const workspace = ctx.workspace ?? ctx.port?.<WorkspacePort>("workspace");
  if (!workspace) throw new TypeError("evaluateRunAcceptance needs `workspace` or `port` in its context");
  const messages = Array.isArray(state.messages) ? (state.messages as BaseMessage[]) : [];
  const bashRuns = Array.isArray(state.bashRuns) ? state.bashRuns.filter(isBashRun) : [];
  const verdict = await evaluateAcceptance(
    criteria,
    { workspace, threadId: ctx.threadId, bashRuns, filesWritten: filesWrittenFromMessages(messages), contractValidate: (ref, payload) => validate(ref, payload) },
    options,
  );
  return { verdict, problems };
}
