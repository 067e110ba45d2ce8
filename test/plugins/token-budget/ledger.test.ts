import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { budgetWarning, countNewUsage, judgeBudget, openBudget, stopThreshold, type BudgetOptions } from "../../../plugins/token-budget/index.js";

const options: BudgetOptions = { enabled: true, limit: 10000, warnAt: 0.7, returnReserve: 0.15 };
const ai = (id: string, input: number, output: number) =>
  new AIMessage({ id, content: "", usage_metadata: { input_tokens: input, output_tokens: output, total_tokens: input + output } });

describe("openBudget / countNewUsage", () => {
  const old: BaseMessage[] = [new HumanMessage({ id: "h1", content: "q" }), ai("a1", 5000, 100), new HumanMessage({ id: "h2", content: "again" })];

  it("baselines the assistant messages present at the start", () => {
    const opened = openBudget(old, "r2", "lead");
    expect(opened).toEqual({
      runId: "r2",
      agent: "lead",
      baselineLastId: "a1",
      counted: [],
      inputTokens: 0,
      outputTokens: 0,
      totalTokens: 0,
      warnedTurn: null,
      cappedTurn: null,
    });
    expect(countNewUsage(opened, old)).toBe(opened);
  });

  it("counts each new assistant message once, input and output", () => {
    let state = openBudget(old, "r2", "lead");
    const first = [...old, ai("b1", 300, 20)];
    state = countNewUsage(state, first);
    expect(state).toMatchObject({ counted: ["b1"], inputTokens: 300, outputTokens: 20, totalTokens: 320 });
    expect(countNewUsage(state, first)).toBe(state);
    const second = [...first, new ToolMessage({ id: "t1", content: "x", tool_call_id: "c" }), ai("b2", 400, 30), ai("b3", 1, 2)];
    state = countNewUsage(state, second);
    expect(state).toMatchObject({ counted: ["b1", "b2", "b3"], inputTokens: 701, outputTokens: 52, totalTokens: 753 });
  });

  it("counts everything when no assistant message predates the run", () => {
    const state = countNewUsage(openBudget([new HumanMessage("hi")], "r1", "lead"), [new HumanMessage("hi"), ai("b1", 10, 5)]);
    expect(state.totalTokens).toBe(15);
  });

  it("never counts old messages after compaction removed the baseline", () => {
    let state = openBudget(old, "r2", "lead");
    state = countNewUsage(state, [...old, ai("b1", 100, 0)]);
    // Compaction: the history before b1 replaced by a summary; b1 and a new call remain.
    const compacted = [new HumanMessage({ id: "s", content: "summary" }), ai("b1", 100, 0), ai("b2", 50, 0)];
    state = countNewUsage(state, compacted);
    expect(state).toMatchObject({ counted: ["b1", "b2"], totalTokens: 150 });
  });

  it("ignores missing or invalid usage", () => {
    const state = countNewUsage(openBudget([], "r1", "lead"), [new AIMessage({ id: "b1", content: "" })]);
    expect(state).toMatchObject({ counted: ["b1"], totalTokens: 0 });
  });
});

describe("judgeBudget", () => {
  const at = (totalTokens: number, extra: object = {}) => ({ ...openBudget([], "r1", "lead"), totalTokens, ...extra });

  it("warns at exactly warnAt and stops at exactly 1 − returnReserve", () => {
    expect(stopThreshold(options)).toBe(8500);
    expect(judgeBudget(at(6999), options, 3)).toMatchObject({ warn: false, stop: false });
    expect(judgeBudget(at(7000), options, 3)).toMatchObject({ warn: true, stop: false, state: { warnedTurn: 3, cappedTurn: null } });
    expect(judgeBudget(at(8499, { warnedTurn: 3 }), options, 4)).toMatchObject({ warn: false, stop: false });
    expect(judgeBudget(at(8500, { warnedTurn: 3 }), options, 4)).toMatchObject({ warn: false, stop: true, state: { warnedTurn: 3, cappedTurn: 4 } });
  });

  it("does both at once when one call crosses both thresholds, and each only once", () => {
    const both = judgeBudget(at(9000), options, 2);
    expect(both).toMatchObject({ warn: true, stop: true, state: { warnedTurn: 2, cappedTurn: 2 } });
    expect(judgeBudget({ ...both.state, totalTokens: 12000 }, options, 3)).toMatchObject({ warn: false, stop: false });
  });

  it("honours other thresholds", () => {
    const custom = { ...options, limit: 1000, warnAt: 0.5, returnReserve: 0 };
    expect(judgeBudget(at(499), custom, 1)).toMatchObject({ warn: false, stop: false });
    expect(judgeBudget(at(999), custom, 1)).toMatchObject({ warn: true, stop: false });
    expect(judgeBudget(at(1000), custom, 1)).toMatchObject({ stop: true });
  });

  it("words the warning with the usage and the stop threshold", () => {
    expect(budgetWarning(at(7200), options)).toBe(
      "[TOKEN BUDGET WARNING] This run has used 7200 of 10000 tokens (72%). At 85% your tools are withdrawn and you must give your final answer. " +
        "Finish the essential work now and prepare your final report.",
    );
  });
});
