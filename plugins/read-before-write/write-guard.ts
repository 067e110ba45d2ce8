import { ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { setKeelMeta } from "../../kernel/loop/message-meta.js";
import type { HookContext, Hooks, ToolHandler, ToolRequest } from "../../kernel/plugin/types.js";
import type { WorkspacePort } from "../../kernel/ports/workspace.js";
import { inspectFile } from "./file-state.js";
import type { PathLocks } from "./path-locks.js";
import { READ_MARK_KEY, newestReadMark, type ReadMark } from "./read-marks.js";

/** Tools that modify a file in place and so need a fresh read of it. */
export const GUARDED_TOOLS: ReadonlySet<string> = new Set(["write_file", "str_replace"]);
export const READ_TOOL = "read_file";

/** Why a write was refused: never read (or the read was compacted away), or changed since. */
export type RefusalReason = "not_read" | "changed";

/**
 * The text of a refused edit's tool result.
 *
 * @example
 * refusalText("str_replace", "report.md", "changed")
 */
export function refusalText(tool: string, path: string, reason: RefusalReason): string {
  const why =
    reason === "not_read"
      ? `\`${path}\` already exists and there is no read_file of it in this conversation (or that read was compacted away)`
      : `\`${path}\` changed since your last read_file of it (your own earlier edits count: a write never refreshes a read)`;
  return `${tool} refused: ${why}. Call read_file on \`${path}\` now, then make this edit against its current content; every modification of an existing file needs a fresh read.`;
}

function refusal(request: ToolRequest, path: string, reason: RefusalReason): ToolMessage {
  const { toolCall } = request;
  const message = new ToolMessage({
    id: `${toolCall.id}:result`,
    tool_call_id: toolCall.id,
    name: toolCall.name,
    content: refusalText(toolCall.name, path, reason),
    status: "error",
  });
  setKeelMeta(message, { readBeforeWrite: { refused: path, reason } });
  return message;
}

/** Run the read, and mark its result when the file was the same before and after it. */
async function markRead(request: ToolRequest, next: ToolHandler, target: { abs: string; rel: string }): Promise<ToolMessage> {
  const before = await inspectFile(target.abs);
  const response = await next(request);
  if (response.status === "error" || before.kind !== "file") return response;
  const after = await inspectFile(target.abs);
  // A file that changed under the read (a concurrent bash command) gets no mark: what the model saw is unknown.
  if (after.kind !== "file" || after.sha256 !== before.sha256) return response;
  const mark: ReadMark = { path: target.rel, sha256: before.sha256 };
  setKeelMeta(response, { [READ_MARK_KEY]: mark });
  return response;
}

/** Let the edit through only on a new file, an uninspectable one, or a fresh read of this content. */
async function guardWrite(request: ToolRequest, next: ToolHandler, ctx: HookContext, target: { abs: string; rel: string }): Promise<ToolMessage> {
  const current = await inspectFile(target.abs);
  if (current.kind !== "file") return next(request);
  const messages = (request.state.messages as readonly BaseMessage[] | undefined) ?? [];
  const mark = newestReadMark(messages, target.rel);
  if (mark?.sha256 === current.sha256) return next(request);
  const reason: RefusalReason = mark === undefined ? "not_read" : "changed";
  ctx.guard({ action: "refuse", reason: "read_before_write", detail: `${request.toolCall.name} ${target.rel}: ${reason === "not_read" ? "no read mark" : "file changed since the newest read"}` });
  return refusal(request, target.rel, reason);
}

/**
 * The wrapToolCall hook. Reads and edits of one (thread, path) hold its lock, so of two
 * parallel edits made after the same read exactly one lands: the second one checks the
 * hash only after the first has written.
 */
export function createWriteGuard(locks: PathLocks): NonNullable<Hooks["wrapToolCall"]> {
  return async (request, next, ctx) => {
    if (ctx.config.enabled === false) return next(request);
    const name = request.toolCall.name;
    if (name !== READ_TOOL && !GUARDED_TOOLS.has(name)) return next(request);
    const userPath = request.toolCall.args.path;
    if (typeof userPath !== "string" || userPath.length === 0 || userPath.includes("\0")) return next(request);
    let target: { abs: string; rel: string };
    try {
      target = ctx.port<WorkspacePort>("workspace").resolve(ctx.threadId, userPath);
    } catch {
      // An escaping path, or one that cannot be resolved: the tool itself reports it.
      return next(request);
    }
    if (target.rel === ".") return next(request);
    return locks.run(`${ctx.threadId}\u0000${target.rel}`, () =>
      name === READ_TOOL ? markRead(request, next, target) : guardWrite(request, next, ctx, target),
    );
  };
}
