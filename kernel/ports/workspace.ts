/**
 * The `workspace` port: the per-thread directory that workspace tools operate on. Provided
 * by the `workspace` service plugin; read by plugins that check files (read-before-write,
 * acceptance) without importing that plugin.
 */
export interface WorkspacePort {
  /** Absolute directory of a thread's workspace (not necessarily created yet). */
  dir(threadId: string): string;
  /**
   * Resolve a user path inside the thread's workspace. Throws a KeelError
   * `KEEL_ERR_WORKSPACE_ESCAPE` for any path that escapes it (including through symlinks).
   */
  resolve(threadId: string, path: string): { abs: string; rel: string };
}

export const WORKSPACE_PORT = "workspace";
