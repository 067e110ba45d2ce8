import { isRolledBack } from "../../kernel/runs/outcomes.js";
import type { RunRecord, RunRecordStatus, RunStore } from "../../kernel/runs/types.js";

/**
 * A run cancelled with rollback is gone from `GET …/runs/:rid` and `GET …/runs`, as
 * LangGraph's API deletes it; Keel keeps its record, so its journal and report stay
 * readable by run id for audit (`…/report`, `…/journal`).
 */
export function isVisibleRun(run: RunRecord): boolean {
  return !isRolledBack(run.outcome);
}

const PAGE = 100;

/** The thread's visible runs, newest first, paged over the visible ones only. */
export async function listVisibleRuns(store: RunStore, threadId: string, options: { limit: number; offset: number; status?: RunRecordStatus }): Promise<RunRecord[]> {
  const wanted = options.offset + options.limit;
  const visible: RunRecord[] = [];
  for (let read = 0; visible.length < wanted; ) {
    const page = await store.listRuns(threadId, { limit: PAGE, offset: read, ...(options.status ? { status: options.status } : {}) });
    read += page.length;
    visible.push(...page.filter(isVisibleRun));
    if (page.length < PAGE) break;
  }
  return visible.slice(options.offset, wanted);
}
