import { ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { keelMeta } from "../../kernel/loop/message-meta.js";

/** Stamped on a `read_file` result: what the model saw, by path and full-content hash. */
export interface ReadMark {
  /** Workspace-relative POSIX path, as the workspace port normalizes it. */
  path: string;
  /** sha256 (hex) of the file's bytes when it was read. */
  sha256: string;
}

/** The key under `additional_kwargs.keel` that holds a read mark. */
export const READ_MARK_KEY = "readMark";

/**
 * The read mark of a message, if it carries one. Only tool results count: they are made
 * by the runtime, while an assistant message's metadata could come from a provider.
 */
export function readMarkOf(message: BaseMessage): ReadMark | undefined {
  if (!ToolMessage.isInstance(message)) return undefined;
  const mark = keelMeta(message)[READ_MARK_KEY] as Partial<ReadMark> | undefined;
  if (typeof mark?.path !== "string" || typeof mark.sha256 !== "string") return undefined;
  return { path: mark.path, sha256: mark.sha256 };
}

/**
 * The newest read mark for `path` in the conversation. Marks live in messages, so a
 * compaction that drops the read drops the permission with it.
 *
 * @example
 * newestReadMark(state.messages, "report.md") // { path: "report.md", sha256: "9f86…" }
 */
export function newestReadMark(messages: readonly BaseMessage[], path: string): ReadMark | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const mark = readMarkOf(messages[i]!);
    if (mark?.path === path) return mark;
  }
  return undefined;
}
