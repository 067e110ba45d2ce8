/**
 * The control-message handlers registered on one bridge instance, by run. The memory
 * bridge delivers to them directly; the Redis bridge delivers what its pub/sub
 * connection receives.
 */
import type { ControlMessage } from "./types.js";

type ControlHandler = (message: ControlMessage) => void;

const ACTIONS = new Set(["interrupt", "rollback"]);

/** True for a well-formed ControlMessage (messages from the wire are checked before delivery). */
export function isControlMessage(value: unknown): value is ControlMessage {
  if (typeof value !== "object" || value === null) return false;
  const { type, action } = value as Record<string, unknown>;
  return type === "cancel" && typeof action === "string" && ACTIONS.has(action);
}

function warnHandlerFailed(error: unknown, runId: string): void {
  process.emitWarning(`a control handler of run \`${runId}\` threw: ${error instanceof Error ? error.message : String(error)}`, "KeelStreamBridge");
}

export class ControlHandlers {
  private readonly byRun = new Map<string, Set<ControlHandler>>();

  constructor(private readonly onError: (error: unknown, runId: string) => void = warnHandlerFailed) {}

  /** Register a handler; returns its removal (idempotent). */
  add(runId: string, handler: ControlHandler): () => void {
    let set = this.byRun.get(runId);
    if (!set) this.byRun.set(runId, (set = new Set()));
    // A wrapper, so the same function registered twice is two registrations.
    const entry: ControlHandler = (message) => handler(message);
    set.add(entry);
    return () => {
      set.delete(entry);
      if (set.size === 0 && this.byRun.get(runId) === set) this.byRun.delete(runId);
    };
  }

  has(runId: string): boolean {
    return this.byRun.has(runId);
  }

  /**
   * Call every handler of the run with its own copy of the message. A throwing handler
   * is reported and does not stop the others: a cancel must reach the run's owner even
   * when an unrelated listener is broken.
   */
  deliver(runId: string, message: ControlMessage): void {
    for (const handler of [...(this.byRun.get(runId) ?? [])]) {
      try {
        handler({ type: message.type, action: message.action });
      } catch (error) {
        this.onError(error, runId);
      }
    }
  }

  clear(): void {
    this.byRun.clear();
  }
}
