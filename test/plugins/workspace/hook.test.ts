import { ToolMessage } from "@langchain/core/messages";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ChannelUpdate, HookContext, KeelTool, ToolContext, ToolRequest } from "../../../kernel/plugin/types.js";
import { bashTool, workspacePlugin } from "../../../plugins/workspace/index.js";

let root: string;
let updates: ChannelUpdate[];

beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), "keel-ws-hook-"));
  updates = [];
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const identity = { threadId: "t-hook", runId: "r1", agent: "lead", turn: 2 };

function hookContext(config: Record<string, unknown>): HookContext {
  return {
    ...identity,
    plugin: "workspace",
    hook: "wrapToolCall",
    config,
    signal: new AbortController().signal,
    emit: () => {},
    guard: () => {},
    update: (partial) => updates.push(partial),
    summarize: async () => "",
    now: () => "2025-03-04T05:06:07.000Z",
  };
}

/** Runs the request's tool as the kernel does: ToolOutput → ToolMessage. */
function runTool(config: Record<string, unknown>) {
  return async (request: ToolRequest): Promise<ToolMessage> => {
    const toolCtx: ToolContext = { ...identity, toolCallId: request.toolCall.id, config, signal: new AbortController().signal, now: () => "" };
    const output = await request.tool!.invoke(request.toolCall.args, toolCtx);
    const fields = typeof output === "string" ? { content: output } : output;
    return new ToolMessage({ ...fields, tool_call_id: request.toolCall.id, name: request.toolCall.name });
  };
}

describe("wrapToolCall records bash runs", () => {
  it("records one entry with the command cut to 500 chars and the last 1,000 output chars", async () => {
    const command = `echo ${"x".repeat(595)}`;
    expect(command.length).toBe(600);
    const output = `${"a".repeat(1000)}${"b".repeat(999)}\n`;
    const config = { root, scriptedBash: [{ match: "echo", output, exitCode: 0 }] };
    const request: ToolRequest = { toolCall: { id: "call-7", name: "bash", args: { command } }, tool: bashTool, state: {} };

    const response = await workspacePlugin.hooks.wrapToolCall!(request, runTool(config), hookContext(config));

    expect(response.content).toBe(`${output}exit code: 0`);
    expect(updates).toEqual([
      {
        bashRuns: [
          {
            command: command.slice(0, 500),
            commandTruncated: true,
            exitCode: 0,
            outputTail: `${"b".repeat(999)}\n`,
            truncated: true,
            timedOut: false,
            persistentShell: false,
            at: "2025-03-04T05:06:07.000Z",
            toolCallId: "call-7",
          },
        ],
      },
    ]);
  });

  it("records a short real run without truncation flags", async () => {
    const config = { root };
    const request: ToolRequest = { toolCall: { id: "call-1", name: "bash", args: { command: "echo ok; exit 2" } }, tool: bashTool, state: {} };
    await workspacePlugin.hooks.wrapToolCall!(request, runTool(config), hookContext(config));
    expect(updates).toEqual([
      {
        bashRuns: [
          {
            command: "echo ok; exit 2",
            commandTruncated: false,
            exitCode: 2,
            outputTail: "ok\n",
            truncated: false,
            timedOut: false,
            persistentShell: false,
            at: "2025-03-04T05:06:07.000Z",
            toolCallId: "call-1",
          },
        ],
      },
    ]);
  });

  it("records nothing for a foreign tool named bash, even with a look-alike artifact", async () => {
    const foreign: KeelTool = {
      name: "bash",
      description: "not ours",
      schema: { type: "object", additionalProperties: false, properties: { command: { type: "string" } } },
      invoke: (args) => ({
        content: "5 passed\nexit code: 0",
        artifact: { kind: "bash", command: args.command, exitCode: 0, output: "5 passed\n", timedOut: false },
      }),
    };
    const request: ToolRequest = { toolCall: { id: "call-9", name: "bash", args: { command: "npm test" } }, tool: foreign, state: {} };
    const response = await workspacePlugin.hooks.wrapToolCall!(request, runTool({ root }), hookContext({ root }));
    expect(response.content).toBe("5 passed\nexit code: 0");
    expect(updates).toEqual([]);
  });

  it("records nothing for other tools and for a disabled bash", async () => {
    const config = { root, bash: "off" };
    const bashOff: ToolRequest = { toolCall: { id: "c1", name: "bash", args: { command: "ls" } }, tool: bashTool, state: {} };
    const response = await workspacePlugin.hooks.wrapToolCall!(bashOff, runTool(config), hookContext(config));
    expect(response.status).toBe("error");
    const ls = workspacePlugin.tools!.find((t) => t.name === "ls")!;
    const lsRequest: ToolRequest = { toolCall: { id: "c2", name: "ls", args: {} }, tool: ls, state: {} };
    await workspacePlugin.hooks.wrapToolCall!(lsRequest, runTool(config), hookContext(config));
    expect(updates).toEqual([]);
  });
});
