import type { RunManager } from "../../kernel/runs/run-manager.js";
import type { RunStore, StreamBridge } from "../../kernel/runs/types.js";
import type { AssistantStore } from "../../kernel/assistants/types.js";
import type { StackCatalog } from "./stack-catalog.js";

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
  /** User assistants (default: in memory, lost on restart). */
  assistants?: AssistantStore;
  /** The served stacks' options, graphs and schemas (without: no option check beyond their shape; graphs and schemas 404). */
  catalog?: StackCatalog;
}
