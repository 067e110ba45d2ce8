import { isKeelError } from "../../kernel/errors.js";
import type { ToolContext, ToolOutput } from "../../kernel/plugin/types.js";
import { workspaceDir } from "./paths.js";

export function errorResult(content: string): ToolOutput {
  return { content, status: "error" };
}

const FS_PROBLEMS: Record<string, string> = {
  ENOENT: "does not exist",
  EISDIR: "is a directory",
  ENOTDIR: "has a part that is not a directory",
  EACCES: "is not accessible (permission denied)",
  EPERM: "is not accessible (operation not permitted)",
  EEXIST: "already exists",
  ENOSPC: "cannot be written (no space left on device)",
};

/**
 * Run a tool body in the thread's workspace, turning user errors (escapes, file-system
 * errors) into error results. Anything else is a bug and is rethrown, so the kernel
 * reports it as `KEEL_ERR_TOOL_FAILED`.
 */
export async function inWorkspace(
  ctx: ToolContext,
  shownPath: string,
  body: (dir: string) => Promise<ToolOutput>,
): Promise<ToolOutput> {
  try {
    return await body(workspaceDir(ctx.config, ctx.threadId));
  } catch (error) {
    if (isKeelError(error)) return errorResult(`${error.code}: ${error.message}`);
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    if (typeof code === "string") {
      // Node's own message names the host path; say it with the path the model used.
      return errorResult(`\`${shownPath}\` ${FS_PROBLEMS[code] ?? `could not be used (${code})`}`);
    }
    throw error;
  }
}
