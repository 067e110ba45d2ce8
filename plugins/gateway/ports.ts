import type { RunManager } from "../../kernel/runs/run-manager.js";
import type { RunStore } from "../../kernel/runs/types.js";

/**
 * What the gateway serves: the run service (admission, streams, cancellation, joins)
 * and the store it runs on (threads are plain store records; the gateway creates,
 * lists and deletes them for their owner).
 */
export interface GatewayDeps {
  runs: RunManager;
  store: RunStore;
}
