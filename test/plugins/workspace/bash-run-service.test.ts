import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { MemorySaver } from "@langchain/langgraph";
import { afterEach, describe, expect, it } from "vitest";
import { compose } from "../../../kernel/compose/index.js";
import { createAgentRuntime } from "../../../kernel/loop/runtime.js";
import { MemoryStreamBridge } from "../../../kernel/runs/memory-bridge.js";
import { MemoryRunStore } from "../../../kernel/runs/memory-store.js";
import { RunManager } from "../../../kernel/runs/run-manager.js";
import { createRuntimeExecutor } from "../../../kernel/runs/runtime-executor.js";
import { workspacePlugin } from "../../../plugins/workspace/index.js";
import { ScriptedChatModel } from "../../../tools/testing/scripted-model.js";

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat[stat.lastIndexOf(")") + 2] !== "Z";
  } catch {
    return false;
  }
}

async function waitFor(check: () => boolean, limitMs = 15_000): Promise<boolean> {
  for (const end = Date.now() + limitMs; Date.now() < end; ) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return check();
}

/** A run service whose model calls bash once with a long command, then answers. */
async function serviceRunningBash(command: string) {
  const root = mkdtempSync(path.join(tmpdir(), "keel-ws-bash-service-"));
  const composition = compose({ name: "lead", plugins: [workspacePlugin] }, { config: [{ workspace: { root } }] });
  const model = new ScriptedChatModel({ script: { turns: [{ toolCalls: [{ name: "bash", args: { command } }] }, { content: "done" }] } });
  const checkpointer = new MemorySaver();
  const store = new MemoryRunStore();
  const executor = createRuntimeExecutor({ runtime: createAgentRuntime(composition, { model, checkpointer }), checkpointer });
  const manager = new RunManager({ store, bridge: new MemoryStreamBridge(), executor, shutdownGraceMs: 0, log: () => {} });
  const now = new Date().toISOString();
  await store.createThread({ threadId: "t1", owner: "alice", status: "idle", metadata: {}, createdAt: now, updatedAt: now });
  const pids: number[] = [];
  cleanups.push(async () => {
    await manager.shutdown();
    for (const pid of pids) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // gone, as expected
      }
    }
    rmSync(root, { recursive: true, force: true });
  });
  const dir = path.join(root, "t1");
  const pidFrom = async (file: string) => {
    const full = path.join(dir, file);
    expect(await waitFor(() => existsSync(full) && readFileSync(full, "utf8").endsWith("\n"))).toBe(true);
    const pid = Number(readFileSync(full, "utf8"));
    pids.push(pid);
    return pid;
  };
  return { manager, pidFrom };
}

const LONG = "echo $$ > sh.pid; sleep 30 & echo $! > bg.pid; sleep 30";

describe("bash under the run service", () => {
  it("a graceful shutdown interrupts the run and kills the command's group, grandchild included", async () => {
    const { manager, pidFrom } = await serviceRunningBash(LONG);
    const run = await manager.createOrReject("t1", { assistantId: "lead", input: "go" }, { user: "alice" });
    const shell = await pidFrom("sh.pid");
    const background = await pidFrom("bg.pid");
    expect(isAlive(shell) && isAlive(background)).toBe(true);
    await manager.shutdown();
    const done = await manager.join(run.runId);
    expect(done.status).toBe("interrupted");
    expect(await waitFor(() => !isAlive(shell) && !isAlive(background))).toBe(true);
  });

  it("cancelling the run kills the command's group", async () => {
    const { manager, pidFrom } = await serviceRunningBash(LONG);
    const run = await manager.createOrReject("t1", { assistantId: "lead", input: "go" }, { user: "alice" });
    const shell = await pidFrom("sh.pid");
    const background = await pidFrom("bg.pid");
    const cancelled = await manager.cancel("t1", run.runId, { wait: true, user: "alice" });
    expect(cancelled.status).toBe("interrupted");
    expect(await waitFor(() => !isAlive(shell) && !isAlive(background))).toBe(true);
  });
});
