import { afterEach, describe, expect, it } from "vitest";
import { startOtlpTracing } from "../../../plugins/tracing/index.js";
import { runScenario } from "../../../tools/scenario/run-scenario.js";
import { OtlpReceiver, type ReceivedSpan } from "./otlp-receiver.js";
import { DELEGATING_SCENARIO, USAGE } from "./scenario.js";

let receiver: OtlpReceiver | undefined;
afterEach(async () => {
  await receiver?.stop();
  receiver = undefined;
});

const one = (spans: ReceivedSpan[], where: (span: ReceivedSpan) => boolean, what: string): ReceivedSpan => {
  const found = spans.filter(where);
  expect(found.map((s) => s.name), what).toHaveLength(1);
  return found[0]!;
};
const childrenOf = (spans: ReceivedSpan[], parent: ReceivedSpan) => spans.filter((s) => s.parentSpanId === parent.spanId);

describe("OTLP/HTTP export of a real run with a subagent", () => {
  it("sends GenAI spans: the run at the root, chat and tool spans under it, the child run under its task span", async () => {
    receiver = new OtlpReceiver();
    const base = await receiver.start();
    const tracing = await startOtlpTracing({ endpoint: `${base}/v1/traces`, serviceName: "keel-test" });
    const report = await runScenario(DELEGATING_SCENARIO, { observer: tracing.observer });
    await tracing.shutdown();

    expect(receiver.requests.every((r) => r.path === "/v1/traces" && r.contentType.startsWith("application/json"))).toBe(true);
    const spans = receiver.spans;
    expect(new Set(spans.map((s) => s.traceId)).size).toBe(1);
    expect(spans.every((s) => s.resource["service.name"] === "keel-test" && s.scope === "keel")).toBe(true);

    const root = one(spans, (s) => s.parentSpanId === undefined, "one root span");
    expect(root.name).toBe("invoke_agent lead");
    expect(root.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": "lead",
      "gen_ai.conversation.id": report.threadId,
      "keel.run.id": report.runId,
      "keel.thread.id": report.threadId,
      "keel.agent.path": "lead",
      "keel.run.status": report.outcome.status,
      "keel.run.turns": 2,
      "gen_ai.usage.input_tokens": USAGE.leadDelegates.input_tokens + USAGE.leadAnswers.input_tokens,
      "gen_ai.usage.output_tokens": USAGE.leadDelegates.output_tokens + USAGE.leadAnswers.output_tokens,
    });

    const leadChats = childrenOf(spans, root).filter((s) => s.attributes["gen_ai.operation.name"] === "chat");
    expect(leadChats.map((s) => [s.name, s.attributes["keel.turn"], s.attributes["gen_ai.usage.input_tokens"], s.attributes["gen_ai.usage.output_tokens"], s.attributes["gen_ai.response.finish_reasons"]])).toEqual([
      ["chat keel-scripted", 1, USAGE.leadDelegates.input_tokens, USAGE.leadDelegates.output_tokens, ["tool_calls"]],
      ["chat keel-scripted", 2, USAGE.leadAnswers.input_tokens, USAGE.leadAnswers.output_tokens, ["stop"]],
    ]);
    expect(leadChats[0]!.attributes).toMatchObject({ "gen_ai.provider.name": "keel-scripted", "gen_ai.request.model": "keel-scripted", "keel.model_call.purpose": "turn" });
    expect(leadChats[0]!.kind).toBe(3); // SPAN_KIND_CLIENT

    const task = one(childrenOf(spans, root), (s) => s.attributes["gen_ai.operation.name"] === "execute_tool", "the lead's one tool call");
    expect(task.name).toBe("execute_tool task");
    expect(task.attributes).toMatchObject({ "gen_ai.tool.name": "task", "gen_ai.tool.call.id": "task-1", "gen_ai.tool.type": "function", "keel.agent.path": "lead" });

    const child = one(childrenOf(spans, task), () => true, "the child run under the task span");
    expect(child.name).toBe("invoke_agent reader");
    expect(child.attributes).toMatchObject({ "gen_ai.agent.name": "reader", "keel.agent.path": "lead/task-1", "keel.run.id": report.runId, "keel.run.turns": 2 });
    const childSteps = childrenOf(spans, child);
    expect(childSteps.filter((s) => s.attributes["gen_ai.operation.name"] === "chat").map((s) => [s.attributes["gen_ai.usage.input_tokens"], s.attributes["gen_ai.usage.output_tokens"]])).toEqual([
      [USAGE.childReads.input_tokens, USAGE.childReads.output_tokens],
      [USAGE.childReturns.input_tokens, USAGE.childReturns.output_tokens],
    ]);
    expect(childSteps.filter((s) => s.attributes["gen_ai.operation.name"] === "execute_tool").map((s) => [s.name, s.attributes["gen_ai.tool.call.id"], s.attributes["keel.tool.status"]])).toEqual([
      ["execute_tool read_file", "read-1", "success"],
      ["execute_tool return_result", "return-1", "success"],
    ]);
    // Nothing else: 1 lead run + 2 chats + 1 task, 1 child run + 2 chats + 2 tools.
    expect(spans).toHaveLength(9);
  });
});
