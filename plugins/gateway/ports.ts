import type { RunManager } from "../../kernel/runs/run-manager.js";
import type { RunStore, StreamBridge } from "../../kernel/runs/types.js";
import type { ThreadRetention } from "../../kernel/runs/thread-retention.js";

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
  /** Thread TTL (README, "Custom auth, CORS, retention"): told of each created thread and each run; absent: threads never expire. */
  retention?: ThreadRetention;
}
