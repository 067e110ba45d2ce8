import { ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { MemorySaver, type BaseCheckpointSaver } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { compose } from "../../../kernel/compose/index.js";
import { sha256Hex } from "../../../kernel/hashing.js";
import { createChildRunner } from "../../../kernel/loop/children.js";
import { keelMeta, messageText } from "../../../kernel/loop/message-meta.js";
import { RunScope, steppingClock, type JournalRecord, type ModelRequestRecord, type StreamEventRecord } from "../../../kernel/loop/run-scope.js";
import { createAgentRuntime } from "../../../kernel/loop/runtime.js";
import { definePlugin } from "../../../kernel/plugin/define-plugin.js";
import type { KeelTool } from "../../../kernel/plugin/types.js";
import type { AgentsPort } from "../../../kernel/ports/agents.js";
import { ScriptedChatModel, type ScriptedAgent } from "../../../tools/testing/scripted-model.js";
import durableContext from "../../../plugins/durable-context/index.js";
import receipts from "../../../plugins/receipts/index.js";
import subagents, { childHasReceipts, COMPLETION_NOTE, DELEGATION_SECTION, taskTool } from "../../../plugins/subagents/index.js";

const echo: KeelTool = { name: "echo", description: "echoes", schema: { type: "object" }, invoke: (args) => `echo ${JSON.stringify(args)}` };
const echoPlugin = definePlugin({
  manifest: { name: "echo-tool", version: "1.0.0", kind: "service", kernel: ">=0.1.0", description: "an echo tool", hooks: {}, config: { type: "object", additionalProperties: false } },
  tools: [echo],
});

const task = (id: string, args: Record<string, unknown> = {}) => ({
  name: "task",
  id,
  args: { description: `task ${id}`, prompt: "Do it.", subagentType: "general-purpose", ...args },
});
const returning = (text: string, status = "succeeded", extra: Record<string, unknown> = {}) => ({
  toolCalls: [{ name: "return_result", args: { status, text, completedSteps: ["echo"], missingSteps: [], ...extra } }],
});
const echoThenReturn = (text: string): ScriptedAgent => ({ turns: [{ toolCalls: [{ name: "echo", args: { x: 1 } }] }, returning(text)] });

interface Setup {
  child: ScriptedAgent;
  /** The subagent stack's receipts entry: on (default), off (`enabled: false`), or absent. */
  childReceipts?: "on" | "off" | "absent";
  leadReceipts?: boolean;
  maxTurns?: number;
  childCheckpointer?: BaseCheckpointSaver;
}

/** A lead (receipts, subagents, durable-context) whose children share its scope, so one journal and one list of model requests hold both. */
function setup({ child, childReceipts = "on", leadReceipts = true, maxTurns, childCheckpointer }: Setup) {
  const events: StreamEventRecord[] = [];
  const journal: JournalRecord[] = [];
  const requests: ModelRequestRecord[] = [];
  const scope = new RunScope("r1", "th", steppingClock(0), { event: (e) => events.push(e), journal: (j) => journal.push(j), modelRequest: (r) => requests.push(r) });
  const childPlugins =
    childReceipts === "absent" ? [echoPlugin] : [{ plugin: receipts, config: { enabled: childReceipts === "on" } }, echoPlugin];
  const agents = createChildRunner({
    composeChild: () => compose({ name: "sub", plugins: childPlugins }),
    modelFor: (agentPath, type) => new ScriptedChatModel({ script: child, agentPath, agentType: type }),
    types: ["general-purpose"],
    scopeFor: () => scope,
    ...(childCheckpointer ? { checkpointer: childCheckpointer } : {}),
  });
  const leadPlugins = [...(leadReceipts ? [receipts] : []), subagents, durableContext];
  const composition = compose({ name: "lead", plugins: leadPlugins }, maxTurns ? { config: [{ subagents: { maxTurns } }] } : {});
  const lead: ScriptedAgent = { turns: [{ toolCalls: [task("t1")] }, { content: "done" }] };
  const runtime = createAgentRuntime(composition, { model: new ScriptedChatModel({ script: lead }), systemPrompt: "You are the lead.", ports: { agents } });
  const run = () => runtime.run({ threadId: "th", runId: "r1", input: "go", scope });
  return { run, events, journal, requests };
}

type Entry = { id: string; status: string; resultBrief?: string; resultSha256?: string; receiptVerdict?: unknown };
const entryOf = (values: Record<string, unknown>) => (values.delegations as Entry[])[0]!;
const toolMessage = (messages: BaseMessage[], id: string) => messages.find((m) => ToolMessage.isInstance(m) && m.tool_call_id === id) as ToolMessage;
const systemOf = (requests: ModelRequestRecord[], agent: string, turn = 1) => messageText(requests.find((r) => r.agent === agent && r.turn === turn)!.messages[0]!);
const dataOf = (requests: ModelRequestRecord[], agent: string, turn: number) =>
  messageText(requests.find((r) => r.agent === agent && r.turn === turn)!.messages.find((m) => messageText(m).startsWith("<durable_context_data>"))!);

describe("citation verdict placement (metadata and ledger, not the result text)", () => {
  it("stores the verdict in the task message's metadata and the entry, keeps it out of the text, and hashes the child's own text only", async () => {
    const { run, requests } = setup({ child: echoThenReturn("Echoed it [r1 echo].") });
    const result = await run();
    const message = toolMessage(result.messages, "t1");
    const entry = entryOf(result.values);
    const verdict = { source: "receipt_citations", citationResolved: true, cited: ["r1"], resolved: ["r1"], failed: [], unknown: [], noCitationClaims: false };
    expect(entry.receiptVerdict).toEqual(verdict);
    expect(keelMeta(message).receiptVerdict).toEqual(verdict);
    expect(message.content).toBe("Task Succeeded. Result: Echoed it [r1 echo].\nCompleted steps: echo\nMissing steps: none");
    expect(entry.resultSha256).toBe(sha256Hex("Echoed it [r1 echo]."));
    expect((keelMeta(message).subagentReturn as { resultSha256: string }).resultSha256).toBe(entry.resultSha256);
    // The lead reads the verdict as a whole sub-line of its ledger entry.
    expect(dataOf(requests, "lead", 2)).toContain(
      "(via general-purpose; reuse this result) -> Task Succeeded. Result: Echoed it [r1 echo]. Completed steps: echo Missing steps: none\n  - citations: 1 resolved, 0 failed, 0 unknown — execution evidence only, does not validate claim correctness",
    );
  });
});

describe("receipts switched off", () => {
  it.each([
    ["`enabled: false` in the subagent stack", "off" as const],
    ["no receipts plugin in the subagent stack", "absent" as const],
  ])("%s: the contract asks for verifiable handles and no citation check runs", async (_label, childReceipts) => {
    const { run, requests } = setup({ child: { turns: [returning("Wrote report.md and ran the tests.")] }, childReceipts });
    const result = await run();
    const system = systemOf(requests, "lead/t1");
    expect(system).toContain("This run keeps no tool receipts, so do not write `[rN]` citations. Back every action you claim with a verifiable handle instead: a file path, a URL, a record id, an HTTP status, or a command and its output.");
    expect(system).not.toContain("Cite the receipt of every action you claim");
    expect(system).toContain("- Cite an external web source as `[citation:Title](URL)`.");
    const entry = entryOf(result.values);
    expect(entry.status).toBe("succeeded");
    expect(entry.receiptVerdict).toBeUndefined();
    expect(keelMeta(toolMessage(result.messages, "t1")).receiptVerdict).toBeUndefined();
    // The same report with receipts on would be "citations: UNVERIFIED": here no such line exists.
    expect(dataOf(requests, "lead", 2)).not.toContain("citations:");
  });

  it("with receipts on, the same uncited report is UNVERIFIED (the check the switch turns off)", async () => {
    const { run, requests } = setup({ child: { turns: [returning("Wrote report.md and ran the tests.")] } });
    const result = await run();
    expect(entryOf(result.values).receiptVerdict).toMatchObject({ noCitationClaims: true });
    expect(dataOf(requests, "lead", 2)).toContain("\n  - citations: UNVERIFIED — action claims without receipt citations");
    expect(systemOf(requests, "lead/t1")).toContain("Cite the receipt of every action you claim");
  });

  it("asks the host for the child stack's composed receipts options; a host that cannot tell falls back to the lead's receipts port", () => {
    const withConfig = (config: Record<string, unknown> | undefined) => ({ pluginConfig: () => config }) as unknown as AgentsPort;
    const port = (enabled: boolean | undefined) => ({ port: () => ({ enabled }) }) as never;
    const noPort = { port: () => { throw Object.assign(new Error("none"), { code: "KEEL_ERR_COMPOSE_MISSING_PORT" }); } } as never;
    expect(childHasReceipts(port(true), withConfig({ enabled: true }), "t")).toBe(true);
    expect(childHasReceipts(port(true), withConfig({ enabled: false }), "t")).toBe(false);
    expect(childHasReceipts(port(true), withConfig(undefined), "t")).toBe(false);
    expect(childHasReceipts(port(false), {} as AgentsPort, "t")).toBe(false);
    expect(childHasReceipts(port(true), {} as AgentsPort, "t")).toBe(true);
  });
});

describe("completed means execution ended, not task acceptance", () => {
  it("is said in the lead's system prompt (the delegation section, request only) and in the task tool's description", async () => {
    const { run, requests } = setup({ child: echoThenReturn("Echoed it [r1 echo].") });
    const result = await run();
    const system = systemOf(requests, "lead");
    expect(system.startsWith(`You are the lead.\n\n${DELEGATION_SECTION}`)).toBe(true);
    expect(DELEGATION_SECTION).toContain(`- ${COMPLETION_NOTE}: a task that \`succeeded\` ran to its end with a result`);
    expect(DELEGATION_SECTION).toContain(
      "retain the useful work, repair only the remaining gaps, verify the load-bearing UNVERIFIED criteria or preserve the uncertainty in your answer, and respect the remaining budget",
    );
    expect(COMPLETION_NOTE).toBe("Completed means execution ended, not task acceptance");
    expect(taskTool.description).toContain(`${COMPLETION_NOTE}: \`succeeded\` says the child's run ended with a result`);
    // The thread's own system message is untouched; children never get the section.
    expect(messageText(result.messages[0]!)).toBe("You are the lead.");
    expect(systemOf(requests, "lead/t1")).not.toContain("## Delegation (the `task` tool)");
  });
});

describe("honest texts and records", () => {
  it("a child's forced final call names `return_result` as the tool left, never \"no tools are available\"", async () => {
    const looping: ScriptedAgent = { turns: [{ toolCalls: [{ name: "echo", args: {} }] }, returning("Echoed once [r1 echo].", "partial", { verification: { type: "calls", expected: 1, found: 1 } })] };
    const { run, requests } = setup({ child: looping, maxTurns: 2 });
    const result = await run();
    const forced = requests.find((r) => r.agent === "lead/t1" && r.turn === 2)!;
    expect(forced.tools).toEqual(["return_result"]);
    const notice = messageText(forced.messages.at(-1)!);
    expect(notice).toMatch(/^\[KEEL STOP\] This run must end now: turn_capped \(by kernel\)\. The only tool still available is `return_result`; use it now to hand back your final report: /);
    expect(notice).not.toMatch(/no tools are available/i);
    expect(entryOf(result.values).status).toBe("partial");
  });

  it.each([
    ["a child that succeeded through return_result (the kernel alone saw no final text: `failed`)", echoThenReturn("Echoed it [r1 echo]."), undefined, "succeeded"],
    [
      "a capped child whose partial is accepted (the kernel alone saw `failed`)",
      { turns: [{ toolCalls: [{ name: "echo", args: {} }] }, returning("Echoed once [r1 echo].", "partial", { verification: { type: "calls", expected: 1, found: 1 } })] },
      2,
      "partial",
    ],
    ["a capped child that never returned", { turns: [{ toolCalls: [{ name: "echo", args: {} }] }], then: "repeat-last" as const }, 2, "failed"],
  ])("journals %s with the status of its task event and delegation entry", async (_label, child, maxTurns, status) => {
    const { run, journal, events } = setup({ child: child as ScriptedAgent, ...(maxTurns ? { maxTurns } : {}) });
    const result = await run();
    const ends = journal.filter((j) => j.agent === "lead/t1" && j.kind === "lifecycle" && j.name === "end");
    const terminal = events.find((e) => e.event === "task" && (e.data as { phase: string }).phase === "terminal")!.data as { status: string };
    expect(ends.map((j) => j.status)).toEqual([status]);
    expect(terminal.status).toBe(status);
    expect(entryOf(result.values).status).toBe(status);
    // The end entry follows the child's own entries and comes before the lead's next model call.
    const at = journal.indexOf(ends[0]!);
    expect(journal.slice(0, at).filter((j) => j.agent === "lead/t1").length).toBeGreaterThan(1);
    expect(journal.slice(at).some((j) => j.agent === "lead" && j.kind === "model_call")).toBe(true);
  });

  it("journals a child whose runtime threw as `failed`, like its task event and entry", async () => {
    class BrokenSaver extends MemorySaver {
      override async put(): Promise<never> {
        throw new Error("disk full");
      }
    }
    const { run, journal, events } = setup({ child: echoThenReturn("Echoed it [r1 echo]."), childCheckpointer: new BrokenSaver() });
    const result = await run();
    const lifecycle = journal.filter((j) => j.agent === "lead/t1" && j.kind === "lifecycle").map((j) => [j.name, j.status]);
    const terminal = events.find((e) => e.event === "task" && (e.data as { phase: string }).phase === "terminal")!.data as { status: string };
    expect(lifecycle).toEqual([["start", "running"], ["end", "failed"]]);
    expect(terminal.status).toBe("failed");
    expect(entryOf(result.values)).toMatchObject({ status: "failed", resultBrief: "Task failed. Error: the child could not run: disk full" });
  });
});
