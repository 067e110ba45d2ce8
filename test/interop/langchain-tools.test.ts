import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { loadMcpTools, MultiServerMCPClient } from "@langchain/mcp-adapters";
import { ToolMessage, type BaseMessage } from "@langchain/core/messages";
import type { CallbackManagerForToolRun } from "@langchain/core/callbacks/manager";
import type { RunnableConfig } from "@langchain/core/runnables";
import { DynamicStructuredTool, StructuredTool, tool } from "@langchain/core/tools";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { compose } from "../../kernel/compose/index.js";
import { isKeelError } from "../../kernel/errors.js";
import { createAgentRuntime } from "../../kernel/loop/runtime.js";
import { definePlugin } from "../../kernel/plugin/define-plugin.js";
import type { ToolLike } from "../../kernel/interop/langchain-tools.js";
import { ScriptedChatModel, type ScriptedAgent } from "../../tools/testing/scripted-model.js";

/** A scripted model that also keeps the tool definitions each call was bound with. */
class RecordingModel extends ScriptedChatModel {
  readonly boundTools: unknown[][] = [];
  override async _generate(messages: BaseMessage[], options: this["ParsedCallOptions"]) {
    this.boundTools.push([...(((options as { tools?: unknown[] }).tools) ?? [])]);
    return super._generate(messages, options);
  }
}

interface ToolDefinition {
  type: string;
  function: { name: string; description: string; parameters: { type: string; properties: Record<string, { type?: string }>; required?: string[] } };
}

async function runTools(tools: readonly ToolLike[], script: ScriptedAgent, via: "plugin" | "runtime" = "plugin") {
  const plugins = via === "plugin" ? [definePlugin({ manifest: { name: "lc-tools", version: "1.0.0", kind: "service", kernel: ">=0.1.0", description: "LangChain tools", hooks: {} }, tools })] : [];
  const model = new RecordingModel({ script });
  const runtime = createAgentRuntime(compose({ name: "t", plugins }), { model, ...(via === "runtime" ? { tools } : {}) });
  const result = await runtime.run({ threadId: "thread-lc", runId: "run-lc", input: "go" });
  const results = result.messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m));
  return { result, results, bound: model.boundTools[0] as ToolDefinition[], runtime };
}

const weather = tool(async ({ city }: { city: string }, config) => `sunny in ${city} (thread ${String(config.configurable?.thread_id)})`, {
  name: "get_weather",
  description: "The weather of a city",
  schema: z.object({ city: z.string().describe("the city") }),
});

describe("LangChain tools in a Keel run", () => {
  it("tool(): the model gets its JSON Schema, the call's result is a Keel tool message", async () => {
    const { result, results, bound } = await runTools([weather], { turns: [{ toolCalls: [{ name: "get_weather", id: "c1", args: { city: "Oslo" } }] }, { content: "It is sunny." }] });
    const definition = bound.find((d) => d.function.name === "get_weather")!;
    expect(definition.function.description).toBe("The weather of a city");
    expect(definition.function.parameters.type).toBe("object");
    expect(definition.function.parameters.properties.city!.type).toBe("string");
    expect(definition.function.parameters.required).toEqual(["city"]);
    expect(results).toHaveLength(1);
    expect(results[0]!.content).toBe("sunny in Oslo (thread thread-lc)");
    expect(results[0]!.tool_call_id).toBe("c1");
    expect(results[0]!.status).toBe("success");
    expect(result.outcome.status).toBe("succeeded");
    expect(result.outcome.text).toBe("It is sunny.");
  });

  it("a tool gets LangChain's ToolRuntime: toolCallId, and the supplying plugin's options as context", async () => {
    const seen: unknown[] = [];
    const probe = tool(async (_input: { q: string }, runtime) => {
      seen.push({ toolCallId: runtime.toolCallId, context: runtime.context, thread: runtime.configurable?.thread_id, aborted: runtime.signal?.aborted });
      return "ok";
    }, { name: "probe", description: "probe", schema: z.object({ q: z.string() }) });
    await runTools([probe], { turns: [{ toolCalls: [{ name: "probe", id: "p1", args: { q: "x" } }] }, { content: "done" }] });
    expect(seen).toEqual([{ toolCallId: "p1", context: {}, thread: "thread-lc", aborted: false }]);
  });

  it("tool() given through the runtime's tools option works the same", async () => {
    const { results, bound, runtime } = await runTools([weather], { turns: [{ toolCalls: [{ name: "get_weather", id: "c1", args: { city: "Rome" } }] }, { content: "ok" }] }, "runtime");
    expect(bound.map((d) => d.function.name)).toEqual(["get_weather"]);
    expect(results[0]!.content).toBe("sunny in Rome (thread thread-lc)");
    expect(runtime.tools.map((t) => t.name)).toEqual(["get_weather"]);
  });

  it("a tool's arguments are validated by its own schema: bad arguments are an error tool result, the run goes on", async () => {
    const { result, results } = await runTools([weather], { turns: [{ toolCalls: [{ name: "get_weather", id: "c1", args: { town: 3 } }] }, { content: "sorry" }] });
    expect(results[0]!.status).toBe("error");
    expect(String(results[0]!.content)).toMatch(/^KEEL_ERR_TOOL_FAILED: tool `get_weather` threw: Received tool input did not match expected schema/);
    expect(result.outcome.status).toBe("succeeded");
  });

  it("a StructuredTool subclass with content_and_artifact: content to the model, the artifact kept, a throw an error result", async () => {
    class Lookup extends StructuredTool {
      name = "lookup";
      description = "Looks a key up";
      schema = z.object({ key: z.string() });
      override responseFormat = "content_and_artifact";
      protected async _call(arg: { key: string }, _run?: CallbackManagerForToolRun, _config?: RunnableConfig): Promise<[string, { rows: number }]> {
        if (arg.key === "boom") throw new Error("lookup backend down");
        return [`value of ${arg.key}`, { rows: 7 }];
      }
    }
    const { results, bound } = await runTools([new Lookup()], {
      turns: [{ toolCalls: [{ name: "lookup", id: "a", args: { key: "k1" } }, { name: "lookup", id: "b", args: { key: "boom" } }] }, { content: "done" }],
    });
    expect(bound[0]!.function.parameters.properties.key!.type).toBe("string");
    const byId = Object.fromEntries(results.map((m) => [m.tool_call_id, m]));
    expect(byId.a!.content).toBe("value of k1");
    expect(byId.a!.artifact).toEqual({ rows: 7 });
    expect(byId.b!.status).toBe("error");
    expect(byId.b!.content).toBe("KEEL_ERR_TOOL_FAILED: tool `lookup` threw: lookup backend down");
  });

  it("a DynamicStructuredTool with a JSON Schema: the schema goes to the model as is, and validates the call", async () => {
    const schema = { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] } as const;
    const add = new DynamicStructuredTool({ name: "add", description: "Adds two numbers", schema, func: async (input: Record<string, unknown>) => String(Number(input.a) + Number(input.b)) });
    const { results, bound } = await runTools([add], {
      turns: [{ toolCalls: [{ name: "add", id: "x", args: { a: 2, b: 40 } }, { name: "add", id: "y", args: { a: "two" } }] }, { content: "42" }],
    });
    expect(bound[0]!.function.parameters).toMatchObject({ type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] });
    const byId = Object.fromEntries(results.map((m) => [m.tool_call_id, m]));
    expect(byId.x!.content).toBe("42");
    expect(byId.y!.status).toBe("error");
    expect(String(byId.y!.content)).toMatch(/did not match expected schema/);
  });

  it("a tool that returns a ToolMessage with status error keeps it", async () => {
    const refuse = tool(async (_input: { q: string }, config) => new ToolMessage({ content: "refused", status: "error", tool_call_id: config.toolCall!.id! }), {
      name: "refuse",
      description: "Always refuses",
      schema: z.object({ q: z.string() }),
    });
    const { results } = await runTools([refuse], { turns: [{ toolCalls: [{ name: "refuse", id: "r", args: { q: "x" } }] }, { content: "ok" }] });
    expect(results[0]!.status).toBe("error");
    expect(results[0]!.content).toBe("refused");
    expect(results[0]!.id).toBe("r:result");
  });

  it("something that is neither a Keel nor a LangChain tool is refused with KEEL_ERR_TOOL_INVALID", () => {
    let caught: unknown;
    try {
      definePlugin({ manifest: { name: "bad", version: "1.0.0", kind: "service", kernel: ">=0.1.0", description: "bad", hooks: {} }, tools: [{ name: "x" } as never] });
    } catch (error) {
      caught = error;
    }
    expect(isKeelError(caught) && caught.code).toBe("KEEL_ERR_TOOL_INVALID");
  });
});

describe("MCP tools through @langchain/mcp-adapters", () => {
  const server = new McpServer({ name: "calc", version: "1.0.0" });
  server.registerTool("multiply", { description: "Multiplies two numbers", inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => ({ content: [{ type: "text", text: String(a * b) }] }));
  server.registerTool("fail", { description: "Always fails", inputSchema: { why: z.string() } }, async ({ why }) => ({ content: [{ type: "text", text: `no: ${why}` }], isError: true }));
  const client = new Client({ name: "keel-test", version: "1.0.0" });
  afterAll(async () => {
    await client.close();
    await server.close();
  });

  it("loadMcpTools' tools run in a Keel run against a real in-process MCP server", async () => {
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    await server.connect(serverTransport);
    await client.connect(clientTransport);
    const tools = await loadMcpTools("calc", client);
    expect(tools.map((t) => t.name).sort()).toEqual(["fail", "multiply"]);
    const { results, bound, result } = await runTools(tools, {
      turns: [{ toolCalls: [{ name: "multiply", id: "m", args: { a: 6, b: 7 } }, { name: "fail", id: "f", args: { why: "because" } }] }, { content: "42" }],
    });
    const multiply = bound.find((d) => d.function.name === "multiply")!;
    expect(multiply.function.description).toBe("Multiplies two numbers");
    expect(multiply.function.parameters.properties).toMatchObject({ a: { type: "number" }, b: { type: "number" } });
    const byId = Object.fromEntries(results.map((m) => [m.tool_call_id, m]));
    expect(byId.m!.content).toBe("42");
    expect(byId.m!.status).toBe("success");
    expect(byId.f!.status).toBe("error");
    expect(String(byId.f!.content)).toMatch(/^KEEL_ERR_TOOL_FAILED: tool `fail` threw: .*returned an error: no: because/);
    expect(result.outcome.status).toBe("succeeded");
  });

  it("MultiServerMCPClient's tools from a stdio MCP server (a child process) run in a Keel run", async () => {
    const server = fileURLToPath(new URL("../fixtures/mcp/stdio-server.mjs", import.meta.url));
    const mcp = new MultiServerMCPClient({ mcpServers: { notes: { transport: "stdio", command: process.execPath, args: [server] } } });
    try {
      const tools = await mcp.getTools();
      expect(tools.map((t) => t.name)).toEqual(["reverse"]);
      const { results, bound } = await runTools(tools, { turns: [{ toolCalls: [{ name: "reverse", id: "r", args: { text: "keel" } }] }, { content: "leek" }] });
      expect(bound[0]!.function.parameters.properties.text!.type).toBe("string");
      expect(results[0]!.content).toBe("leek");
      expect(results[0]!.status).toBe("success");
    } finally {
      await mcp.close();
    }
  });
});
