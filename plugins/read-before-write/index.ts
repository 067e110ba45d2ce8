import { definePlugin } from "../../kernel/plugin/define-plugin.js";
import type { Plugin } from "../../kernel/plugin/types.js";
import { readBeforeWriteManifest } from "./manifest.js";
import { PathLocks } from "./path-locks.js";
import { createWriteGuard } from "./write-guard.js";

/**
 * A read-before-write plugin instance with its own per-(thread, path) locks. Every
 * runtime built from the same instance shares them, so edits of one thread's file are
 * serialized even across its subagents.
 */
export function createReadBeforeWritePlugin(): Plugin {
  return definePlugin({ manifest: readBeforeWriteManifest, hooks: { wrapToolCall: createWriteGuard(new PathLocks()) } });
}

/**
 * Each modification of an existing workspace file needs a fresh `read_file` of its
 * current content.
 *
 * @example
 * { "plugins": ["workspace", "read-before-write"], "config": { "read-before-write": { "enabled": true } } }
 */
export const readBeforeWritePlugin = createReadBeforeWritePlugin();

export default readBeforeWritePlugin;

export { readBeforeWriteConfigSchema, readBeforeWriteManifest } from "./manifest.js";
export { READ_MARK_KEY, newestReadMark, readMarkOf, type ReadMark } from "./read-marks.js";
export { PathLocks } from "./path-locks.js";
export { inspectFile, type FileState } from "./file-state.js";
export { GUARDED_TOOLS, READ_TOOL, createWriteGuard, refusalText, type RefusalReason } from "./write-guard.js";
