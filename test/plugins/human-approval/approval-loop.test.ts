/**
 * human-approval in the agent loop (scripted model, real runtime and checkpointer): one
 * interrupt per AI message with LangChain's HITL request, approve / edit / reject decided
 * together, invalid decisions applying nothing, the refusal in a delegated child, and who
 * decided in `approvals`, the journal and the receipts.
 */
import { describe, expect, it } from "vitest";
import { MemorySaver } from "@langchain/langgraph";
import type { AIMessage, BaseMessage, ToolMessage } from "@langchain/core/messages";
import { compose } from "../../../kernel/compose/index.js";
import { createAgentRuntime, type RunOptions } from "../../../kernel/loop/runtime.js";
import { RunScope, steppingClock, type JournalRecord } from "../../../kernel/loop/run-scope.js";
import { ScriptedChatModel, type ScriptedAgent } from "../../../tools/testing/scripted-model.js";
import humanApproval from "../../../plugins/human-approval/index.js";
import receipts from "../../../plugins/receipts/index.js";
import { tool, toolsPlugin } from "../../loop/harness.js";

const POLICY = { interruptOn: { write: true, deploy: { allowedDecisions: ["approve", "reject"], description: "Deploys to production" }, read: false } };

function setup(script: ScriptedAgent, policy: Record<string, unknown> = POLICY) {
  const ran: Array<{ tool: string; args: unknown }> = [];
  const make = (name: string) => tool(name, async (args) => {
    ran.push({ tool: name, args });
    return `${name} done with ${JSON.stringify(args)}`;
  });
  const composition = compose({ name: "test", plugins: [toolsPlugin(make("write"), make("deploy"), make("read")), "receipts", { name: "human-approval", config: policy }] }, { plugins: [humanApproval, receipts] });
  const model = new ScriptedChatModel({ script });
  const checkpointer = new MemorySaver();
  const runtime = createAgentRuntime(composition, { model, checkpointer });
  const journal: JournalRecord[] = [];
  let n = 0;
  const run = (options: Partial<RunOptions> = {}) => {
    const runId = `r${++n}`;
    const scope = new RunScope(runId, "t1", steppingClock(0), { journal: (j) => journal.push(j) });
    return runtime.run({ threadId: "t1", runId, input: "go", user: "alice", scope, ...options });
  };
  const resume = (resumeValue: unknown, user = "alice") => run({ input: null, command: { resume: resumeValue }, user });
  const messages = async () => (await runtime.getState("t1")).messages as BaseMessage[];
  /** The paused thread's interrupt values, from the checkpoint's pending writes (what `tasks[].interrupts` shows). */
  const interrupts = async () => {
    const tuple = await checkpointer.getTuple({ configurable: { thread_id: "t1" } });
    return (tuple?.pendingWrites ?? []).filter(([, channel]) => channel === "__interrupt__").flatMap(([, , value]) => (value as Array<{ value: HITL }>).map((i) => i.value));
  };
  return { runtime, run, resume, ran, model, journal, messages, interrupts };
}

const threeCalls: ScriptedAgent = {
  turns: [
    { content: "three things", toolCalls: [{ id: "c1", name: "write", args: { path: "a.txt", text: "A" } }, { id: "c2", name: "deploy", args: { env: "prod" } }, { id: "c3", name: "read", args: { path: "a.txt" } }] },
    { content: "all done" },
  ],
  then: "stop",
};

interface HITL {
  actionRequests: Array<{ name: string; args: Record<string, unknown>; description?: string }>;
  reviewConfigs: Array<{ actionName: string; allowedDecisions: string[] }>;
  error?: { code: string; message: string };
}

describe("human-approval: one interrupt per AI message", () => {
  it("pauses before the tools step with LangChain's HITL request for the policy's calls only; nothing ran; the model is not called again on resume", async () => {
    const { run, resume, ran, model, messages, journal, interrupts } = setup(threeCalls);
    const paused = await run();
    const [request, ...more] = await interrupts();
    expect(more).toEqual([]);
    expect(request).toEqual({
      actionRequests: [
        { name: "write", args: { path: "a.txt", text: "A" }, description: 'Tool execution requires approval\n\nTool: write\nArgs: {\n  "path": "a.txt",\n  "text": "A"\n}' },
        { name: "deploy", args: { env: "prod" }, description: "Deploys to production" },
      ],
      reviewConfigs: [
        { actionName: "write", allowedDecisions: ["approve", "edit", "reject"] },
        { actionName: "deploy", allowedDecisions: ["approve", "reject"] },
      ],
    });
    expect(paused.outcome.status).toBe("partial");
    expect(paused.outcome.primaryStopReason).toBe("awaiting_input");
    expect(ran).toEqual([]);
    expect(model.turnsAnswered).toBe(1);
    const requested = journal.filter((j) => j.kind === "approval");
    // Journaled once for the pause (not for the deferred attempt in the model's step).
    expect(requested.map((j) => [j.name, j.status, j.toolCallId])).toEqual([["write", "requested", "c1"], ["deploy", "requested", "c2"]]);

    const done = await resume({ decisions: [{ type: "approve" }, { type: "approve" }] });
    expect(done.outcome.status).toBe("succeeded");
    expect(model.turnsAnswered).toBe(2);
    expect(ran.map((r) => r.tool).sort()).toEqual(["deploy", "read", "write"]);
    expect((await messages()).map((m) => m.getType())).toEqual(["human", "ai", "tool", "tool", "tool", "ai"]);
  });

  it("mixed decisions: approve runs as is, edit runs with the new args (the AI message changed), reject never runs and the model sees the message as an error result", async () => {
    const script: ScriptedAgent = {
      turns: [
        { content: "two writes and a deploy", toolCalls: [{ id: "w1", name: "write", args: { path: "a.txt", text: "A" } }, { id: "w2", name: "write", args: { path: "b.txt", text: "B" } }, { id: "d1", name: "deploy", args: { env: "prod" } }] },
        { content: "ok" },
      ],
      then: "stop",
    };
    const { run, resume, ran, model, messages, journal } = setup(script);
    await run();
    const done = await resume({
      decisions: [{ type: "approve" }, { type: "edit", editedAction: { name: "write", args: { path: "b.txt", text: "safer B" } } }, { type: "reject", message: "not on a Friday" }],
    });
    expect(done.outcome.status).toBe("succeeded");
    expect(ran).toEqual(expect.arrayContaining([{ tool: "write", args: { path: "a.txt", text: "A" } }, { tool: "write", args: { path: "b.txt", text: "safer B" } }]));
    expect(ran).toHaveLength(2);
    expect(ran.some((r) => r.tool === "deploy")).toBe(false);
    const all = await messages();
    const ai = all[1] as AIMessage;
    expect(ai.tool_calls?.map((c) => c.args)).toEqual([{ path: "a.txt", text: "A" }, { path: "b.txt", text: "safer B" }, { env: "prod" }]);
    const results = all.filter((m) => m.getType() === "tool") as ToolMessage[];
    const rejected = results.find((m) => m.tool_call_id === "d1")!;
    expect(rejected.status).toBe("error");
    expect(rejected.content).toBe("not on a Friday");
    // The model's second call saw the rejection.
    expect(model.turnsAnswered).toBe(2);
    const decided = journal.filter((j) => j.kind === "approval" && j.status !== "requested");
    expect(decided.map((j) => [j.name, j.status, j.toolCallId, j.by])).toEqual([["write", "approve", "w1", "alice"], ["write", "edit", "w2", "alice"], ["deploy", "reject", "d1", "alice"]]);
  });

  it("a reject without a message gets LangChain's default text; rejecting every call still calls the model again", async () => {
    const script: ScriptedAgent = { turns: [{ content: "deploy", toolCalls: [{ id: "d1", name: "deploy", args: { env: "prod" } }] }, { content: "understood" }], then: "stop" };
    const { run, resume, ran, model, messages } = setup(script);
    await run();
    const done = await resume({ decisions: [{ type: "reject" }] });
    expect(ran).toEqual([]);
    expect(model.turnsAnswered).toBe(2);
    expect(done.outcome.text).toBe("understood");
    const result = (await messages()).find((m) => m.getType() === "tool") as ToolMessage;
    expect(result.content).toBe("User rejected the tool call for `deploy` with id d1");
    expect(result.status).toBe("error");
  });

  it("approvals, journal and receipts say who decided what", async () => {
    const { run, resume, runtime } = setup(threeCalls);
    await run();
    await resume({ decisions: [{ type: "edit", editedAction: { name: "write", args: { path: "a.txt", text: "A2" } } }, { type: "reject", message: "no" }] }, "bob");
    const values = await runtime.getState("t1");
    const approvals = values.approvals as Array<Record<string, unknown>>;
    expect(approvals.map((a) => [a.toolCallId, a.tool, a.decision, a.by])).toEqual([["c1", "write", "edit", "bob"], ["c2", "deploy", "reject", "bob"]]);
    expect(approvals[0]!.args).toEqual({ path: "a.txt", text: "A2" });
    expect(approvals[1]!.message).toBe("no");
    expect(typeof approvals[0]!.at).toBe("string");
    const stamped = values.receipts as Array<Record<string, unknown>>;
    const byCall = new Map(stamped.map((r) => [r.toolCallId, r]));
    expect(byCall.get("c1")!.approval).toMatchObject({ decision: "edit", by: "bob" });
    expect(byCall.get("c1")!.status).toBe("success");
    expect(byCall.get("c2")!.approval).toMatchObject({ decision: "reject", by: "bob" });
    expect(byCall.get("c2")!.status).toBe("error");
    // A call the policy does not cover has no approval on its receipt.
    expect(byCall.get("c3")!.approval).toBeUndefined();
  });
});

describe("human-approval: invalid decisions", () => {
  it.each([
    ["a wrong count", { decisions: [{ type: "approve" }] }, "1 decision for 2 pending tool calls"],
    ["a type the tool does not allow", { decisions: [{ type: "approve" }, { type: "edit", editedAction: { name: "deploy", args: { env: "dev" } } }] }, "`edit`, which this tool does not allow"],
    ["an edit without an args object", { decisions: [{ type: "edit", editedAction: { name: "write", args: "x" } }, { type: "approve" }] }, "args object"],
    ["an edit naming another tool", { decisions: [{ type: "edit", editedAction: { name: "read", args: {} } }, { type: "approve" }] }, "not the tool"],
    ["not a HITLResponse", "yes", "must be `{ decisions: [...] }`"],
  ])("%s applies nothing; the thread pauses again with the same request plus the error; a valid resume then works", async (_label, bad, why) => {
    const { run, resume, ran, model, journal, runtime, interrupts } = setup(threeCalls);
    await run();
    const again = await resume(bad);
    expect(again.outcome.primaryStopReason).toBe("awaiting_input");
    expect(ran).toEqual([]);
    expect((await runtime.getState("t1")).approvals ?? []).toEqual([]);
    const invalid = journal.filter((j) => j.kind === "approval" && j.status === "invalid");
    expect(invalid.map((j) => j.toolCallId)).toEqual(["c1", "c2"]);
    expect(again.outcome.stopReasons[0]!.detail).toContain("1 interrupt");
    const [pending] = await interrupts();
    expect(pending!.actionRequests.map((a) => a.name)).toEqual(["write", "deploy"]);
    expect(pending!.error?.code).toBe("KEEL_ERR_APPROVAL_DECISION_INVALID");
    expect(pending!.error?.message).toContain(why);

    const done = await resume({ decisions: [{ type: "approve" }, { type: "approve" }] });
    expect(done.outcome.status).toBe("succeeded");
    expect(ran.map((r) => r.tool).sort()).toEqual(["deploy", "read", "write"]);
    expect(model.turnsAnswered).toBe(2);
    // Each decision once, after the invalid round.
    expect(journal.filter((j) => j.kind === "approval" && j.status === "approve").map((j) => j.toolCallId)).toEqual(["c1", "c2"]);
  });
});

describe("human-approval: policy and subagents", () => {
  it("the default policy names no tool: nothing pauses", async () => {
    const { run, ran } = setup(threeCalls, {});
    const done = await run();
    expect(done.outcome.status).toBe("succeeded");
    expect(ran).toHaveLength(3);
  });

  it("a delegated child's call to a policy tool is refused with an error result naming the policy; its other calls run; nothing pauses", async () => {
    const { run, ran, messages, journal } = setup(threeCalls);
    const child = await run({ agent: "lead/task_1" });
    expect(child.outcome.status).toBe("succeeded");
    expect(ran.map((r) => r.tool)).toEqual(["read"]);
    const results = (await messages()).filter((m) => m.getType() === "tool") as ToolMessage[];
    const refused = results.filter((m) => m.status === "error");
    expect(refused.map((m) => m.tool_call_id)).toEqual(["c1", "c2"]);
    expect(String(refused[0]!.content)).toMatch(/^KEEL_ERR_APPROVAL_REFUSED_IN_SUBAGENT: `write` needs human approval under the human-approval policy \(`interruptOn.write`\)/);
    expect(journal.filter((j) => j.kind === "approval").map((j) => [j.agent, j.status, j.toolCallId])).toEqual([["lead/task_1", "refused", "c1"], ["lead/task_1", "refused", "c2"]]);
  });
});

