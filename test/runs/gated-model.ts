/** Scripted models for fencing tests: one whose N-th call waits for a gate, one that waits for its abort signal. */
import { ScriptedChatModel, type ScriptedAgent } from "../../tools/testing/scripted-model.js";

/** A scripted model whose `gatedTurn`-th call waits until `release()`. */
export class GatedModel extends ScriptedChatModel {
  private calls = 0;
  reachedGate = false;
  private open!: () => void;
  private readonly gate = new Promise<void>((resolve) => (this.open = resolve));
  constructor(script: ScriptedAgent, private readonly gatedTurn: number, options: { agentPath?: string; agentType?: string } = {}) {
    super({ script, ...options });
  }
  release(): void {
    this.open();
  }
  override async _generate(...args: Parameters<ScriptedChatModel["_generate"]>) {
    if (++this.calls === this.gatedTurn) {
      this.reachedGate = true;
      await this.gate;
    }
    return super._generate(...args);
  }
}

/** A model whose every call waits for the call's AbortSignal, and records that it saw it. */
export class SignalWaitingModel extends ScriptedChatModel {
  started = false;
  sawAbort = false;
  constructor() {
    super({ script: { turns: [] } });
  }
  override async _generate(...args: Parameters<ScriptedChatModel["_generate"]>): ReturnType<ScriptedChatModel["_generate"]> {
    const signal = args[1]?.signal;
    this.started = true;
    return new Promise((_resolve, reject) => {
      if (!signal) return;
      signal.addEventListener("abort", () => {
        this.sawAbort = true;
        reject(signal.reason instanceof Error ? signal.reason : new Error("aborted"));
      });
    });
  }
}
