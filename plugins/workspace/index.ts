import { definePlugin } from "../../kernel/plugin/define-plugin.js";
import type { Hooks } from "../../kernel/plugin/types.js";
import { bashTool, isBashArtifact } from "./bash.js";
import { toBashRun } from "./bash-runs.js";
import { lsTool, readFileTool, strReplaceTool, writeFileTool } from "./file-tools.js";
import { workspaceManifest } from "./manifest.js";
import { resolveInWorkspace, workspaceDir } from "./paths.js";
import { workspaceRollbackPort } from "./rollback.js";
import { snapshotWorkspace } from "./snapshot.js";
import type { WorkspacePort } from "../../kernel/ports/workspace.js";

const hooks: Hooks = {
  /**
   * Record every run of this plugin's own bash tool. The tool object is compared by
   * identity, so another tool that happens to be named `bash` (or returns a look-alike
   * artifact) cannot write evidence.
   */
  async wrapToolCall(request, next, ctx) {
    const response = await next(request);
    if (request.toolCall.name === "bash" && request.tool === bashTool && isBashArtifact(response.artifact)) {
      ctx.update({ bashRuns: [toBashRun(response.artifact, request.toolCall.id, ctx.now())] });
    }
    return response;
  },
};

/**
 * The workspace service: a directory per thread, the tools `read_file`, `write_file`,
 * `str_replace`, `ls` and `bash`, the `bashRuns` channel, and the `rollback` port that
 * puts a thread's directory back when its run is rolled back.
 *
 * @example
 * { "plugins": ["workspace"], "config": { "workspace": { "root": ".keel/workspaces", "bash": "off" } } }
 */
export const workspacePlugin = definePlugin({
  manifest: workspaceManifest,
  hooks,
  tools: [readFileTool, writeFileTool, strReplaceTool, lsTool, bashTool],
  services: {
    /** The `workspace` port (kernel/ports/workspace.ts), for plugins that check files. */
    workspace: (config): WorkspacePort => ({
      dir: (threadId) => workspaceDir(config, threadId),
      resolve: (threadId, userPath) => resolveInWorkspace(workspaceDir(config, threadId), userPath),
    }),
    /** The `rollback` port (kernel/ports/rollback.ts): the thread's directory is copied before a run and swapped back on a rollback. */
    rollback: workspaceRollbackPort,
  },
  /** The report's `workspace.files`: every regular file of the thread's workspace at the end (the lead's stack only: children share it). */
  report: ({ agent, threadId, config }) => (agent === "lead" ? { workspaceFiles: snapshotWorkspace(workspaceDir(config, threadId)) } : undefined),
});

export default workspacePlugin;

export { bashTool, isBashArtifact, runRealBash, runScriptedBash, type BashArtifact } from "./bash.js";
export { toBashRun, type BashRun } from "./bash-runs.js";
export { lsTool, readFileTool, strReplaceTool, writeFileTool, type FileWriteArtifact } from "./file-tools.js";
export { readWriteLog, writeLogPath, WRITE_LOG_DIR, type WorkspaceWrite } from "./write-log.js";
export { workspaceConfigSchema, workspaceManifest } from "./manifest.js";
export { readWorkspaceOptions, watchdogDeadlineForLease, type ScriptedBashEntry, type WorkspaceOptions } from "./options.js";
export { resolveInWorkspace, workspaceDir, type WorkspacePath } from "./paths.js";
export { seedWorkspace, snapshotWorkspace, type WorkspaceFileDigest } from "./snapshot.js";
