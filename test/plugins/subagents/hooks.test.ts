import { ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { validate } from "../../../contracts/registry.js";
import { compose } from "../../../kernel/compose/index.js";
import { createChildRunner } from "../../../kernel/loop/children.js";
import { keelMeta } from "../../../kernel/loop/message-meta.js";
import type { StreamEventRecord } from "../../../kernel/loop/run-scope.js";
import { createAgentRuntime } from "../../../kernel/loop/runtime.js";
import { definePlugin } from "../../../kernel/plugin/define-plugin.js";
import type { ChildAgentResult } from "../../../kernel/ports/agents.js";
import { ScriptedChatModel, type ScriptedAgent, type ScriptedFault } from "../../../tools/testing/scripted-model.js";
import subagents from "../../../plugins/subagents/index.js";

const task = (id: string, args: Record<string, unknown> = {}) => ({
  name: "task",
  id,
  args: { description: `task ${id}`, prompt: "Do it.", subagentType: "general-purpose", ...args },
});
const returns = { turns: [{ toolCalls: [{ name: "return_result", args: { status: "succeeded", text: "Done.", completedSteps: ["do it"], missingSteps: [] } }] }] };

interface Setup {
  lead: ScriptedAgent;
  child?: ScriptedAgent;
  faults?: ScriptedFault[];
  withAgents?: boolean;
  extra?: ReturnType<typeof definePlugin>[];
}

/** A lead with subagents (and probes), children from an empty subagent stack, one scripted model per child. */
function setup({ lead, child = returns, faults = [], withAgents = true, extra = [] }: Setup) {
  const events: StreamEventRecord[] = [];
  const children = new Map<string, ChildAgentResult>();
  let childEnded: () => void = () => undefined;
  const childEnd = new Promise<void>((resolve) => (childEnded = resolve));
  const agents = createChildRunner({
    composeChild: () => compose({ name: "sub", plugins: [] }),
    modelFor: (agentPath, type) => new ScriptedChatModel({ script: child, agentPath, agentType: type, faults }),
    types: ["general-purpose"],
    onChildEnd: (path, result) => {
      children.set(path, result);
      childEnded();
    },
  });
  const composition = compose({ name: "t", plugins: [subagents, ...extra] });
  const runtime = createAgentRuntime(composition, { model: new ScriptedChatModel({ script: lead, faults }), ...(withAgents ? { ports: { agents } } : {}) });
  return { runtime, events, children, childEnd, sink: { event: (e: StreamEventRecord) => events.push(e) } };
}

type Entry = { id: string; runId: string; status: string; resultBrief?: string };
const ledger = (values: Record<string, unknown>) => values.delegations as Entry[];
const toolMessage = (messages: BaseMessage[], id: string) => messages.find((m) => ToolMessage.isInstance(m) && m.tool_call_id === id) as ToolMessage;

describe("subagents hooks in a real runtime", () => {
  it("runs a child, writes the terminal entry and puts subagent-return@1 in the tool message's metadata", async () => {
    const { runtime, events, sink, children } = setup({ lead: { turns: [{ toolCalls: [task("t1")] }, { content: "ok" }] } });
    const result = await runtime.run({ threadId: "th", runId: "r1", input: "go", sink });

    expect(result.outcome.status).toBe("succeeded");
    expect(ledger(result.values).map((d) => [d.id, d.runId, d.status])).toEqual([["t1", "r1", "succeeded"]]);
    const message = toolMessage(result.messages, "t1");
    expect(message.content).toBe("Task Succeeded. Result: Done.\nCompleted steps: do it\nMissing steps: none");
    const meta = keelMeta(message);
    expect(meta.delegationId).toBe("t1");
    expect(validate("subagent-return@1", meta.subagentReturn)).toEqual({ valid: true, errors: [] });
    expect(meta.subagentReturn).toMatchObject({ status: "succeeded", completedSteps: ["do it"], schemaValid: null });

    // The child ran under the parent's thread id (its workspace) with its own checkpoint thread.
    const child = children.get("lead/t1")!;
    expect(child.values.runMeta).toMatchObject({ threadId: "th", agent: "lead/t1" });
    expect((await runtime.getState("th")).delegations).toEqual(result.values.delegations);
    const phases = events.filter((e) => e.event === "task").map((e) => (e.data as { phase: string }).phase);
    expect(phases).toEqual(["started", "running", "terminal"]);
  });

  it("cancelling the parent cancels the child; the in_progress entry was checkpointed before the tools step", async () => {
    const hang: ScriptedFault = { agent: "general-purpose", turn: 1, times: "always", kind: "hang" };
    const { runtime, sink, children, childEnd } = setup({ lead: { turns: [{ toolCalls: [task("t1")] }, { content: "next turn" }] }, faults: [hang] });
    const controller = new AbortController();
    const events: StreamEventRecord[] = [];
    const first = await runtime.run({
      threadId: "th",
      runId: "r1",
      input: "go",
      signal: controller.signal,
      sink: {
        event: (e) => {
          events.push(e);
          if (e.event === "task") controller.abort();
        },
      },
    });
    expect(first.outcome.status).toBe("cancelled");
    await childEnd;
    expect(children.get("lead/t1")!.outcome.status).toBe("cancelled");
    expect(ledger(await runtime.getState("th")).map((d) => [d.id, d.status])).toEqual([["t1", "in_progress"]]);

    // A new user turn: the entry can never finish, so it is flipped to cancelled (never downgraded later).
    const second = await runtime.run({ threadId: "th", runId: "r2", input: "again", sink });
    const entry = ledger(second.values).find((d) => d.id === "t1")!;
    expect(entry.status).toBe("cancelled");
    expect(entry.resultBrief).toBe("cancelled: run r1 ended before this task finished, and a new user turn began");
  });

  it("answers a task without a child runner (no `agents` port) with a failed result, never silently", async () => {
    const { runtime, sink } = setup({ lead: { turns: [{ toolCalls: [task("t1")] }, { content: "ok" }] }, withAgents: false });
    const result = await runtime.run({ threadId: "th", runId: "r1", input: "go", sink });
    const message = toolMessage(result.messages, "t1");
    expect(message.status).toBe("error");
    expect(message.content).toBe("Task failed. Error: this runtime has no `agents` port, so it cannot run subagents");
    expect(ledger(result.values).map((d) => d.status)).toEqual(["failed"]);
  });

  it("refuses invalid arguments and unknown subagent types before any child starts", async () => {
    const { runtime, sink, children } = setup({
      lead: { turns: [{ toolCalls: [task("bad", { prompt: 7 }), task("odd", { subagentType: "poet" })] }, { content: "ok" }] },
    });
    const result = await runtime.run({ threadId: "th", runId: "r1", input: "go", sink });
    expect(toolMessage(result.messages, "bad").content).toBe("Task failed. Error: invalid task arguments: /prompt: must be string");
    expect(toolMessage(result.messages, "odd").content).toBe("Task failed. Error: unknown subagentType `poet`; available: general-purpose");
    expect(ledger(result.values).map((d) => [d.id, d.status])).toEqual([["bad", "failed"], ["odd", "failed"]]);
    expect(children.size).toBe(0);
  });

  it("cancels in-progress entries whose call a stop request withdrew before it ran", async () => {
    const stopper = definePlugin({
      manifest: {
        name: "stopper",
        version: "1.0.0",
        kind: "middleware",
        kernel: ">=0.1.0",
        description: "requests a stop after the first model call",
        requiresBefore: [{ name: "subagents", optional: true }],
        hooks: { afterModel: { mutates: ["stopReasons"] } },
      },
      hooks: { afterModel: (_state, ctx) => (ctx.turn === 1 ? { stopReasons: [{ reason: "loop_capped", by: "stopper", turn: 1, request: "final" }] } : undefined) },
    });
    const { runtime, sink, children } = setup({ lead: { turns: [{ toolCalls: [task("t1")] }, { content: "stopped" }] }, extra: [stopper] });
    const result = await runtime.run({ threadId: "th", runId: "r1", input: "go", sink });
    expect(result.outcome.status).toBe("partial");
    expect(children.size).toBe(0);
    expect(ledger(result.values).map((d) => [d.id, d.status, d.resultBrief])).toEqual([
      ["t1", "cancelled", "cancelled: the task call was withdrawn by a stop request before it ran"],
    ]);
  });
});
