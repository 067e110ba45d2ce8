/**
 * Fenced workspace writes. Before a file tool writes, the run's lease fence is checked
 * (`ctx.fence.assertHeld()`: refused with `KEEL_ERR_LEASE_FENCED` once this worker lost
 * its lease; nothing is written), and after it wrote, one JSON line is appended to the
 * thread's write log `<root>/.keel-write-log/<threadId>.jsonl`:
 * `{ at, threadId, runId, agent, toolCallId, tool, path, bytes, epoch, leaseEpoch? }`
 * (`epoch` null for a run without a lease). The log lives beside the workspaces, not in
 * one, so the model never sees it and a rollback never rewinds it; a history checker
 * reads it in order with `readWriteLog`.
 */
import { appendFile, mkdir, readFile } from "node:fs/promises";
import path from "node:path";
import type { ToolContext } from "../../kernel/plugin/types.js";
import { readWorkspaceOptions } from "./options.js";

export const WRITE_LOG_DIR = ".keel-write-log";

export interface WorkspaceWrite {
  at: string;
  threadId: string;
  runId: string;
  agent: string;
  toolCallId: string;
  tool: string;
  /** The file, relative to the workspace (POSIX). */
  path: string;
  bytes: number;
  /** The run's lease epoch the write was made under; null without a lease. */
  epoch: number | null;
  /** A delegated child's write: its own delegation lease's epoch. */
  leaseEpoch?: number;
}

/** The write log of one thread (a file beside the workspaces). */
export function writeLogPath(config: Readonly<Record<string, unknown>> | undefined, threadId: string): string {
  return path.resolve(process.cwd(), readWorkspaceOptions(config).root, WRITE_LOG_DIR, `${threadId}.jsonl`);
}

/**
 * Rejects `KEEL_ERR_LEASE_FENCED` when the run lost its lease (the tool turns it into an
 * error result): the local check, then the run store's lease row (`fence.confirm`).
 */
export async function assertWriteAllowed(ctx: ToolContext, tool: string, file: string): Promise<void> {
  const what = `\`${tool}\` of \`${file}\``;
  if (ctx.fence?.confirm) await ctx.fence.confirm(what);
  else ctx.fence?.assertHeld(what);
}

/** Append the record of a write that just happened. */
export async function recordWrite(ctx: ToolContext, tool: string, file: string, bytes: number): Promise<WorkspaceWrite> {
  const record: WorkspaceWrite = {
    at: ctx.now(),
    threadId: ctx.threadId,
    runId: ctx.runId,
    agent: ctx.agent,
    toolCallId: ctx.toolCallId,
    tool,
    path: file,
    bytes,
    epoch: ctx.fence?.epoch ?? null,
    ...(ctx.fence?.leaseEpoch === undefined ? {} : { leaseEpoch: ctx.fence.leaseEpoch }),
  };
  const log = writeLogPath(ctx.config, ctx.threadId);
  await mkdir(path.dirname(log), { recursive: true });
  // One line per append (O_APPEND): lines of concurrent writers never interleave.
  await appendFile(log, `${JSON.stringify(record)}\n`, "utf8");
  return record;
}

/** Every write recorded for the thread, in the order they were made ([] when none). */
export async function readWriteLog(config: Readonly<Record<string, unknown>> | undefined, threadId: string): Promise<WorkspaceWrite[]> {
  let text: string;
  try {
    text = await readFile(writeLogPath(config, threadId), "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  return text.split("\n").filter((line) => line.length > 0).map((line) => JSON.parse(line) as WorkspaceWrite);
}
