import type { RunManager } from "../../kernel/runs/run-manager.js";
import type { ItemStore } from "../../kernel/ports/item-store.js";
import type { RunRecord, RunStore, StreamBridge } from "../../kernel/runs/types.js";
import type { CronRecord, CronStore } from "../../kernel/runs/cron-types.js";
import type { ThreadCheckpoints } from "./thread-checkpoints.js";
import type { AssistantStore } from "../../kernel/assistants/types.js";
import type { StackCatalog } from "./stack-catalog.js";
import type { ThreadRetention } from "../../kernel/runs/thread-retention.js";

/** What the gateway needs of the cron scheduler (kernel/runs/cron-scheduler.ts): its fires. */
export interface CronFires {
  onFire(listener: (cron: CronRecord, run: RunRecord) => void | Promise<unknown>): () => void;
}

/**
 * What the gateway serves: the run service (admission, streams, cancellation, joins),
 * the store it runs on (threads are plain store records; the gateway creates, lists
 * and deletes them for their owner) and its stream bridge.
 */
export interface GatewayDeps {
  runs: RunManager;
  store: RunStore;
  /** The run manager's bridge: read to tell a finished run whose events are gone from one still to come. */
  bridge: StreamBridge;
  /** Crons (`/runs/crons`); without it those routes are not served and `/info` says `crons: false`. */
  crons?: CronStore;
  /** The cron scheduler of this worker: each run it fires for a cron with a `webhook` is followed up (docs/http.md, "Crons API"); absent: crons' webhooks are not sent. */
  cronFires?: CronFires;
  /**
   * The threads' LangGraph checkpoints (`createThreadCheckpoints`): state at a checkpoint,
   * history, state updates, copies, pruning. Without it the state route answers the
   * executor's values and the checkpoint routes answer 501.
   */
  threadState?: ThreadCheckpoints;
  /** User assistants (default: in memory, lost on restart). */
  assistants?: AssistantStore;
  /** The served stacks' options, graphs and schemas (without: no option check beyond their shape; graphs and schemas 404). */
  catalog?: StackCatalog;
  /** Long-term items behind `/store/*` (the `item-store` port); absent: kept in memory. */
  items?: ItemStore;
  /** Thread TTL (docs/http.md, "Thread TTL and retention"): told of each created thread and each run; absent: threads never expire. */
  retention?: ThreadRetention;
}
