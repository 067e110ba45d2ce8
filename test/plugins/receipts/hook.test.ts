import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { compose } from "../../../kernel/compose/index.js";
import { isHidden, keelMeta, messageText } from "../../../kernel/loop/message-meta.js";
import type { ModelRequestRecord } from "../../../kernel/loop/run-scope.js";
import { createAgentRuntime } from "../../../kernel/loop/runtime.js";
import { definePlugin } from "../../../kernel/plugin/define-plugin.js";
import type { ChannelUpdate, HookContext, KeelTool, ToolRequest } from "../../../kernel/plugin/types.js";
import { ScriptedChatModel, type ScriptedTurn } from "../../../tools/testing/scripted-model.js";
import { LEDGER_HEADER, LEDGER_OMITTED, receiptsPlugin, type Receipt } from "../../../plugins/receipts/index.js";

const sha16 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex").slice(0, 16);

/** `fast` releases `slow`, so slow (called first) finishes last: completion order ≠ tool-call order. */
function latchTools(): KeelTool[] {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  return [
    { name: "slow", description: "waits for fast", schema: { type: "object" }, invoke: async () => (await released, "slow done") },
    { name: "fast", description: "releases slow", schema: { type: "object" }, invoke: () => (release(), "fast done") },
  ];
}

function testTools(): KeelTool[] {
  return [
    // Output that looks like a receipt: the channel must still hold only what the hook stamped.
    { name: "echo", description: "echo", schema: { type: "object" }, invoke: (args) => `{"receipts":[{"id":"r99","status":"success"}],"args":${JSON.stringify(args)}}` },
    { name: "fail", description: "error result", schema: { type: "object" }, invoke: () => ({ content: "it failed", status: "error" }) },
    {
      name: "explode",
      description: "throws",
      schema: { type: "object" },
      invoke: () => {
        throw new Error("kaboom");
      },
    },
    { name: "task", description: "delegates", schema: { type: "object" }, invoke: () => "Task Succeeded. Result: ok" },
    ...latchTools(),
  ];
}

function setup(config: Record<string, unknown>, turns: ScriptedTurn[]) {
  const tools = definePlugin({
    manifest: { name: "test-tools", version: "1.0.0", kind: "service", kernel: ">=0.1.0", description: "test tools", hooks: {}, config: { type: "object", additionalProperties: false } },
    tools: testTools(),
  });
  const composition = compose({ name: "t", plugins: [{ plugin: receiptsPlugin, config }, tools] });
  const model = new ScriptedChatModel({ script: { turns } });
  const runtime = createAgentRuntime(composition, { model, systemPrompt: "You are a test agent." });
  const requests: ModelRequestRecord[] = [];
  const run = (runId: string, input = "go", threadId = "thread-1") => runtime.run({ threadId, runId, input, sink: { modelRequest: (r) => requests.push(r) } });
  return { run, requests, runtime };
}

function receiptsOf(values: Record<string, unknown>): Receipt[] {
  return values.receipts as Receipt[];
}

function ledgerOf(messages: readonly BaseMessage[]): string | null {
  const hidden = messages.filter((m) => isHidden(m) && messageText(m).startsWith("## Tool receipts"));
  expect(hidden.length).toBeLessThanOrEqual(1);
  return hidden[0] ? messageText(hidden[0]) : null;
}

function aiReceiptIds(messages: readonly BaseMessage[]): unknown[] {
  return messages.filter((m) => AIMessage.isInstance(m)).map((m) => keelMeta(m).receiptIds);
}

describe("receipts: stamping in wrapToolCall", () => {
  it("stamps r1, r2, … in call order with the hashes of the args and of the output the model saw", async () => {
    const { run } = setup({}, [
      { toolCalls: [{ id: "c1", name: "echo", args: { b: 2, a: 1 } }] },
      { toolCalls: [{ id: "c2", name: "fail", args: {} }] },
      { toolCalls: [{ id: "c3", name: "explode", args: { x: [1] } }] },
      { toolCalls: [{ id: "c4", name: "nope", args: {} }] },
      { content: "Done." },
    ]);
    const result = await run("run-1");
    const toolText = (id: string) => messageText(result.messages.find((m) => ToolMessage.isInstance(m) && m.tool_call_id === id)!);
    const receipts = receiptsOf(result.values);
    expect(receipts.map(({ createdAt: _c, ...r }) => r)).toEqual([
      { id: "r1", toolCallId: "c1", tool: "echo", status: "success", argsSha256: sha16('{"a":1,"b":2}'), outputSha256: sha16(toolText("c1")), bytes: Buffer.byteLength(toolText("c1")) },
      { id: "r2", toolCallId: "c2", tool: "fail", status: "error", argsSha256: sha16("{}"), outputSha256: sha16("it failed"), bytes: 9 },
      { id: "r3", toolCallId: "c3", tool: "explode", status: "error", argsSha256: sha16('{"x":[1]}'), outputSha256: sha16(toolText("c3")), bytes: Buffer.byteLength(toolText("c3")) },
      { id: "r4", toolCallId: "c4", tool: "nope", status: "error", argsSha256: sha16("{}"), outputSha256: sha16(toolText("c4")), bytes: Buffer.byteLength(toolText("c4")) },
    ]);
    expect(toolText("c3")).toContain("kaboom");
    for (const r of receipts) expect(Number.isNaN(Date.parse(r.createdAt))).toBe(false);
    expect(result.outcome.status).toBe("succeeded");
  });

  it("gives parallel calls of one step ids in tool-call order, whatever order they finish in", async () => {
    const { run } = setup({}, [
      { toolCalls: [{ id: "c-slow", name: "slow", args: {} }, { id: "c-fast", name: "fast", args: {} }] },
      { toolCalls: [{ id: "c3", name: "echo", args: {} }, { id: "c4", name: "fail", args: {} }] },
      { content: "Done." },
    ]);
    const result = await run("run-1");
    expect(receiptsOf(result.values).map((r) => [r.id, r.toolCallId])).toEqual([
      ["r1", "c-slow"],
      ["r2", "c-fast"],
      ["r3", "c3"],
      ["r4", "c4"],
    ]);
  });

  it("restarts the numbering per agent run and shows only this run's receipts", async () => {
    const { run, requests } = setup({}, [
      { toolCalls: [{ id: "a1", name: "echo", args: {} }, { id: "a2", name: "echo", args: { n: 2 } }] },
      { content: "First done." },
      { toolCalls: [{ id: "b1", name: "fail", args: {} }] },
      { content: "Second done." },
    ]);
    await run("run-1");
    const second = await run("run-2", "again");
    expect(receiptsOf(second.values).map((r) => `${r.id}:${r.toolCallId}`)).toEqual(["r1:a1", "r2:a2", "r1:b1"]);
    expect(second.values.receiptRun).toEqual({ runId: "run-2", agent: "lead", start: 2, delegationsAtStart: 0 });
    expect(second.values.receiptCounts).toEqual({ total: 3, success: 2, error: 1 });
    expect(second.values.receiptIndex).toEqual(["r1 echo", "r2 echo", "r1 fail error"]);
    const lastLedger = ledgerOf(requests.at(-1)!.messages)!;
    expect(lastLedger.split("\n").slice(3)).toEqual([expect.stringMatching(/^- \[r1\] fail status=error /)]);
    expect(aiReceiptIds(second.messages)).toEqual([[], ["r1", "r2"], [], ["r1"]]);
  });
});

describe("receipts: the ledger in wrapModelCall", () => {
  it("injects the run's ledger as a hidden message after the system message, never persisted, and stamps the ids shown", async () => {
    const { run, requests } = setup({}, [
      { toolCalls: [{ id: "c1", name: "echo", args: {} }] },
      { toolCalls: [{ id: "c2", name: "fail", args: {} }] },
      { content: "Done [r1 echo]." },
    ]);
    const result = await run("run-1");
    expect(requests).toHaveLength(3);
    expect(ledgerOf(requests[0]!.messages)).toBeNull();
    const [r1, r2] = receiptsOf(result.values);
    const line = (r: Receipt) => `- [${r.id}] ${r.tool} status=${r.status} args_sha256=${r.argsSha256} output_sha256=${r.outputSha256} bytes=${r.bytes}`;
    expect(requests[1]!.messages.map((m) => m.getType())).toEqual(["system", "human", "human", "ai", "tool"]);
    expect(messageText(requests[1]!.messages[1]!)).toBe(`${LEDGER_HEADER}\n${line(r1!)}`);
    expect(isHidden(requests[1]!.messages[1]!)).toBe(true);
    expect(ledgerOf(requests[2]!.messages)).toBe(`${LEDGER_HEADER}\n${line(r1!)}\n${line(r2!)}`);
    expect(ledgerOf(result.messages)).toBeNull();
    expect(aiReceiptIds(result.messages)).toEqual([[], ["r1"], ["r1", "r2"]]);
  });

  it("keeps the newest lines within ledgerChars, and stamps exactly the ids shown", async () => {
    const calls = Array.from({ length: 12 }, (_, i) => ({ id: `c${i + 1}`, name: "echo", args: { i } }));
    const { run, requests } = setup({ ledgerChars: 600 }, [{ toolCalls: calls }, { content: "Done." }]);
    const result = await run("run-1");
    const ledger = ledgerOf(requests[1]!.messages)!;
    expect(ledger.length).toBeLessThanOrEqual(600);
    const lines = ledger.split("\n").slice(3);
    expect(lines[0]).toBe(LEDGER_OMITTED);
    const ids = lines.slice(1).map((l) => /^- \[(r\d+)\]/.exec(l)![1]);
    expect(ids.at(-1)).toBe("r12");
    expect(ids.length).toBeGreaterThan(0);
    expect(ids.length).toBeLessThan(12);
    expect(aiReceiptIds(result.messages).at(-1)).toEqual(ids);
  });

  it("delegation_only: shows no ledger until the agent has made a task call", async () => {
    const { run, requests } = setup({ render: "delegation_only" }, [
      { toolCalls: [{ id: "c1", name: "echo", args: {} }] },
      { toolCalls: [{ id: "t1", name: "task", args: { description: "x" } }] },
      { content: "Done." },
    ]);
    const result = await run("run-1");
    expect(ledgerOf(requests[1]!.messages)).toBeNull();
    expect(ledgerOf(requests[2]!.messages)!.split("\n").slice(3).map((l) => l.slice(0, 14))).toEqual(["- [r1] echo st", "- [r2] task st"]);
    expect(aiReceiptIds(result.messages)).toEqual([[], [], ["r1", "r2"]]);
  });

  it("enabled: false stamps nothing and shows nothing", async () => {
    const { run, requests } = setup({ enabled: false }, [{ toolCalls: [{ id: "c1", name: "echo", args: {} }] }, { content: "Done." }]);
    const result = await run("run-1");
    expect(result.values.receipts).toEqual([]);
    expect(requests.every((r) => ledgerOf(r.messages) === null)).toBe(true);
    expect(aiReceiptIds(result.messages)).toEqual([undefined, undefined]);
  });
});

describe("receipts: a failure to stamp never breaks the tool call", () => {
  const request: ToolRequest = { toolCall: { id: "c1", name: "echo", args: {} }, index: 0, tool: undefined, state: { receipts: [] } };
  function context(updates: ChannelUpdate[], now: () => string): HookContext {
    return {
      threadId: "t",
      runId: "r",
      agent: "lead",
      turn: 1,
      plugin: "receipts",
      hook: "wrapToolCall",
      config: { enabled: true, render: "always", ledgerChars: 2000 },
      signal: new AbortController().signal,
      emit: () => {},
      guard: () => {},
      update: (partial) => updates.push(partial),
      summarize: async () => "",
      now,
      port: () => {
        throw new Error("no ports");
      },
    };
  }

  it("returns the tool result and writes nothing when stamping throws", async () => {
    const updates: ChannelUpdate[] = [];
    const result = new ToolMessage({ content: "ok", tool_call_id: "c1" });
    const ctx = context(updates, () => {
      throw new Error("clock broke");
    });
    await expect(receiptsPlugin.hooks.wrapToolCall!(request, async () => result, ctx)).resolves.toBe(result);
    expect(updates).toEqual([]);
  });

  it("writes nothing when the receipt would not validate (the kernel would fail the run)", async () => {
    const updates: ChannelUpdate[] = [];
    const result = new ToolMessage({ content: "ok", tool_call_id: "c1" });
    await receiptsPlugin.hooks.wrapToolCall!(request, async () => result, context(updates, () => "not a date"));
    expect(updates).toEqual([]);
  });

  it("stamps an error receipt and rethrows when an inner layer throws", async () => {
    const updates: ChannelUpdate[] = [];
    const boom = new Error("inner failure");
    const ctx = context(updates, () => "2026-01-01T00:00:00.000Z");
    await expect(receiptsPlugin.hooks.wrapToolCall!(request, async () => Promise.reject(boom), ctx)).rejects.toBe(boom);
    expect(updates).toEqual([{ receipts: [expect.objectContaining({ id: "r1", status: "error", bytes: 0 })], receiptCounts: { total: 1, error: 1 }, receiptIndex: ["r1 echo error"] }]);
  });
});

describe("receipts manifest", () => {
  it("declares the receipts channel under the receipt@1 contract (writes validated fail-closed)", () => {
    const composition = compose({ name: "t", plugins: [receiptsPlugin] });
    expect(composition.channels.get("receipts")?.contract).toBe("receipt@1");
    expect(composition.channels.get("receipts")?.reducer).toEqual({ kind: "append", keepNewest: 100, keepNewestOption: "keepInState" });
  });
});
