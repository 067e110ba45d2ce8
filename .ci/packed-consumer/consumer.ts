// A TypeScript project using keel as installed from its packed tarball: every entry,
// a stack composed with a built-in stack and its own plugin, a LangChain message type,
// one scripted run, and a stack with a LangChain tool and a LangChain middleware (the
// project installs `langchain` itself), run with tracing on: OpenTelemetry spans exported
// over OTLP/HTTP to a receiver of its own (the project installs the optional
// @opentelemetry packages). .ci/packed-install.sh type-checks it, compiles it and runs it.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { toolCallLimitMiddleware } from "langchain";
import { compose, createAgentRuntime, definePlugin, fromLangChainMiddleware, isKeelError, loadStack, startOtlpTracing, type Plugin } from "keel";
import { validate } from "keel/contracts";
import { MemoryRunStore, MemoryStreamBridge } from "keel/host";
import { ScriptedChatModel } from "keel/testing";

const echo: Plugin = definePlugin({
  manifest: { name: "echo-tools", version: "1.0.0", kind: "service", kernel: ">=0.1.0", description: "an echo tool", hooks: {} },
  tools: [{ name: "echo", description: "echo", schema: { type: "object" }, invoke: (args) => `echo:${JSON.stringify(args)}` }],
});

const lead = await loadStack("lead");
const leadComposition = compose(lead.stack, { plugins: lead.plugins });
if (leadComposition.order.length === 0) throw new Error("the lead stack composed to nothing");

const model = new ScriptedChatModel({ script: { turns: [{ toolCalls: [{ name: "echo", args: { a: 1 } }] }, { content: "Done." }] } });
const runtime = createAgentRuntime(compose({ name: "consumer", plugins: [echo] }), { model });
const result = await runtime.run({ threadId: "t1", runId: "r1", input: "hi" });
const messages: BaseMessage[] = result.messages;
if (result.outcome.status !== "succeeded" || result.outcome.text !== "Done.") throw new Error(`unexpected outcome ${JSON.stringify(result.outcome)}`);
if (!messages.some((message) => message instanceof AIMessage)) throw new Error("no AIMessage from the consumer's @langchain/core");

// A LangChain tool as is, and LangChain's own toolCallLimitMiddleware as a plugin: its `jumpTo: "end"` is a stop.
const shout = tool(async (input) => String((input as { text?: unknown }).text).toUpperCase(), {
  name: "shout",
  description: "Upper-cases a text",
  schema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
});
const limit = fromLangChainMiddleware(
  toolCallLimitMiddleware({ runLimit: 1, exitBehavior: "end" }),
  { name: "tool-call-limit", hooks: { afterModel: { observes: ["messages"], mutates: ["messages"] } } },
  { stopReason: "tool_call_limit" },
);
const lcModel = new ScriptedChatModel({
  script: { turns: [{ toolCalls: [{ name: "shout", args: { text: "hi" } }] }, { toolCalls: [{ name: "shout", args: { text: "again" } }] }, { content: "never" }] },
});
// Tracing on: an OTLP/HTTP receiver on loopback collects what the exporter sends.
const exported: string[] = [];
const receiver = createServer((request, response) => {
  let body = "";
  request.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
  request.on("end", () => {
    exported.push(`${request.url} ${body}`);
    response.writeHead(200, { "content-type": "application/json" }).end("{}");
  });
});
await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
const tracing = await startOtlpTracing({ endpoint: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/v1/traces` });
const lcRuntime = createAgentRuntime(compose({ name: "consumer-langchain", plugins: [echo, limit] }), { model: lcModel, tools: [shout], observer: tracing.observer });
const lcResult = await lcRuntime.run({ threadId: "t2", runId: "r2", input: "shout twice" });
await tracing.shutdown();
receiver.close();
const spans = exported.filter((entry) => entry.startsWith("/v1/traces ")).join("\n");
for (const name of ["invoke_agent", "chat ", "execute_tool shout"]) if (!spans.includes(name)) throw new Error(`no \`${name}\` span was exported: ${spans.slice(0, 500)}`);
const shouted = lcResult.messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m)).map((m) => m.content);
if (shouted[0] !== "HI") throw new Error(`the LangChain tool answered ${JSON.stringify(shouted)}`);
if (lcResult.outcome.status !== "partial" || lcResult.outcome.stopReasons.map((r) => r.reason).join() !== "tool_call_limit") {
  throw new Error(`the LangChain middleware did not stop the run: ${JSON.stringify(lcResult.outcome)}`);
}

const check = validate("status@2", { bogus: true });
if (check.valid) throw new Error("status@2 accepted a bogus payload");
try {
  compose({ name: "broken", plugins: ["no-such-plugin"] });
  throw new Error("compose accepted an unknown plugin");
} catch (error) {
  if (!isKeelError(error) && !(error instanceof Error && "problems" in error)) throw error;
}
void new MemoryRunStore();
void new MemoryStreamBridge();
console.log(`consumer ok: ${leadComposition.order.length} plugins in lead, ${messages.length} messages, LangChain tool and middleware: ${lcResult.outcome.status}, ${exported.length} OTLP export(s)`);
