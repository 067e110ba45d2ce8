import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { project, upgrade, validate } from "../../contracts/index.js";
import { expandModelRequests } from "../../contracts/run-report/migrate.js";
import type { RunReportV2 } from "../../contracts/run-report/v2.js";
import { compose } from "../../kernel/compose/index.js";
import { setKeelMeta } from "../../kernel/loop/message-meta.js";
import type { ModelRequestRecord } from "../../kernel/loop/run-scope.js";
import type { RunResult } from "../../kernel/loop/runtime.js";
import { buildRunReport, buildRunReportV1, toReportVersion, type RunReportInput } from "../../kernel/report/run-report.js";

const result: RunResult = {
  outcome: { contract: "status", version: 2, status: "succeeded", stopReasons: [], text: "ok" },
  messages: [new HumanMessage("go"), new AIMessage("ok")],
  values: {},
  turns: 1,
  usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
};
const lead = compose({ name: "bare", plugins: [] });

function input(modelRequests: ModelRequestRecord[]): RunReportInput {
  return { scenario: "s", threadId: "t-1", runId: "r-1", result, events: [], journal: [], modelRequests, compositions: { lead } };
}

type Op = { agent: string; kind: "append" | "tool" | "ledger" | "compact" | "retry" | "clone" | "hint"; text: string; tools: string[] };

const op: fc.Arbitrary<Op> = fc.record({
  agent: fc.constantFrom("lead", "lead/t1", "lead/t2"),
  kind: fc.constantFrom("append", "tool", "ledger", "compact", "retry", "clone", "hint"),
  text: fc.string({ maxLength: 6 }),
  tools: fc.subarray(["read_file", "write_file", "task"]),
});

/** Copies of the messages with equal content but new objects (as a checkpoint reload gives). */
function cloneMessage(m: BaseMessage): BaseMessage {
  if (SystemMessage.isInstance(m)) return new SystemMessage(m.content as string);
  if (ToolMessage.isInstance(m)) return new ToolMessage({ content: m.content as string, tool_call_id: m.tool_call_id, status: m.status ?? "success" });
  if (AIMessage.isInstance(m)) return new AIMessage({ content: m.content as string, tool_calls: m.tool_calls ?? [] });
  return setKeelMeta(new HumanMessage(m.content as string), { hidden: (m.additional_kwargs?.keel as { hidden?: boolean } | undefined)?.hidden === true });
}

/** Model requests of agents whose histories evolve like a real run's: appends, a ledger after the system message, compaction, retries, reloads, trailing hints. */
function requests(ops: readonly Op[]): ModelRequestRecord[] {
  const lists = new Map<string, BaseMessage[]>();
  const turns = new Map<string, number>();
  const out: ModelRequestRecord[] = [];
  ops.forEach((o, i) => {
    let list = lists.get(o.agent) ?? [new SystemMessage(`system of ${o.agent}`), new HumanMessage(`task ${o.agent}`)];
    let turn = (turns.get(o.agent) ?? 0) + (o.kind === "retry" ? 0 : 1);
    if (turn === 0) turn = 1;
    const withoutExtras = list.filter((m) => !(m.additional_kwargs?.keel as { hidden?: boolean } | undefined)?.hidden);
    if (o.kind === "append") list = [...withoutExtras, new AIMessage(o.text), new HumanMessage(`${o.text}?`)];
    if (o.kind === "tool") {
      const id = `c${i}`;
      list = [...withoutExtras, new AIMessage({ content: "", tool_calls: [{ id, name: "read_file", args: { path: o.text, n: i } }] }), new ToolMessage({ content: o.text, tool_call_id: id, status: i % 3 === 0 ? "error" : "success" })];
    }
    if (o.kind === "ledger") list = [withoutExtras[0]!, setKeelMeta(new HumanMessage(`ledger ${i} ${o.text}`), { hidden: true }), ...withoutExtras.slice(1)];
    if (o.kind === "compact") list = [withoutExtras[0]!, new HumanMessage(`summary ${o.text}`), ...withoutExtras.slice(-2)];
    if (o.kind === "clone") list = list.map(cloneMessage);
    if (o.kind === "hint") list = [...list, setKeelMeta(new HumanMessage(`hint ${o.text}`), { hidden: true })];
    lists.set(o.agent, list);
    turns.set(o.agent, turn);
    out.push({ agent: o.agent, turn, messages: [...list], tools: o.tools });
  });
  return out;
}

describe("run-report@2: model requests as deltas", () => {
  it("for random runs, project(@2) deep-equals the @1 report built the old way, and upgrade(project(@2)) gives @2 back", () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
        const records = requests(ops);
        const v2 = buildRunReport(input(records));
        const v1 = buildRunReportV1(input(records));
        expect(validate("run-report@2", v2).errors ?? []).toEqual([]);
        expect(v1.version).toBe(1);
        const projected = project("run-report@2", v2, 1);
        expect(projected).toEqual(v1);
        expect(upgrade("run-report@1", projected)).toEqual(v2);
        expect(toReportVersion(v2, 1)).toEqual(v1);
        expect(toReportVersion(v1, 2)).toEqual(v2);
      }),
      { numRuns: 150 },
    );
  });

  it("a long conversation stores each message once: @2 grows linearly where @1 grows quadratically", () => {
    const ops: Op[] = Array.from({ length: 300 }, (_, i) => ({ agent: "lead", kind: i % 10 === 0 ? "ledger" : "tool", text: `step-${i}-${"x".repeat(40)}`, tools: ["read_file"] }));
    const records = requests(ops);
    const v2 = JSON.stringify(buildRunReport(input(records)));
    const v1 = JSON.stringify(buildRunReportV1(input(records)));
    const once = (s: string, needle: string) => s.split(needle).length - 1;
    expect(once(v2, "step-151-")).toBe(2); // the tool call's args and its result, once each
    expect(once(v1, "step-151-")).toBeGreaterThan(200);
    expect(v2.length * 20).toBeLessThan(v1.length);
  });

  it("each request is a delta against the same agent's previous request; tools are left out when unchanged", () => {
    const records = requests([
      { agent: "lead", kind: "append", text: "a", tools: ["read_file"] },
      { agent: "lead/t1", kind: "append", text: "b", tools: ["read_file"] },
      { agent: "lead", kind: "tool", text: "c", tools: ["read_file"] },
      { agent: "lead", kind: "retry", text: "c", tools: ["read_file", "task"] },
    ]);
    const r = buildRunReport(input(records)).modelRequests;
    expect(r.map((q) => ("base" in q ? q.base : null))).toEqual([null, null, 0, 2]);
    expect(r[2]).toMatchObject({ agent: "lead", turn: 2, parts: [{ copy: [0, 4] }, { role: "assistant" }, { role: "tool" }] });
    expect(r[2]).not.toHaveProperty("tools");
    expect(r[3]).toMatchObject({ turn: 2, tools: ["read_file", "task"] });
  });

  it("a base that is not an earlier request, or a copy past the base's end, is KEEL_ERR_CONTRACT_VIOLATION with its pointer", () => {
    const whole = { agent: "lead", turn: 1, messages: [{ role: "user" as const, content: "hi", hidden: false }], tools: [] };
    const codeOf = (requests: RunReportV2["modelRequests"]) => {
      try {
        expandModelRequests(requests);
      } catch (error) {
        return [(error as { code: string }).code, (error as { pointer: string }).pointer];
      }
      return null;
    };
    expect(codeOf([whole, { agent: "lead", turn: 2, base: 1, parts: [] }])).toEqual(["KEEL_ERR_CONTRACT_VIOLATION", "/modelRequests/1/base"]);
    expect(codeOf([whole, { agent: "lead", turn: 2, base: 0, parts: [{ copy: [0, 2] }] }])).toEqual(["KEEL_ERR_CONTRACT_VIOLATION", "/modelRequests/1/parts/0/copy"]);
    expect(codeOf([whole, { agent: "lead", turn: 2, base: 0, parts: [{ copy: [0, 1] }] }])).toBeNull();
  });
});
