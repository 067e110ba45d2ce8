import { AIMessage, HumanMessage, SystemMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import {
  LEDGER_HEADER,
  LEDGER_OMITTED,
  hasDelegated,
  insertAfterLeadingSystem,
  receiptLine,
  renderReceiptLedger,
  type Receipt,
} from "../../../plugins/receipts/index.js";

function receipt(n: number, tool = "write_file", status: "success" | "error" = "success"): Receipt {
  return { id: `r${n}`, toolCallId: `call-${n}`, tool, status, argsSha256: "0123456789abcdef", outputSha256: "fedcba9876543210", bytes: 100 + n, createdAt: "2026-01-01T00:00:00.000Z" };
}

describe("renderReceiptLedger", () => {
  it("starts with the three header lines of PLUGINS.md, then one line per receipt in the documented format", () => {
    const { text, shown } = renderReceiptLedger([receipt(1), receipt(2, "bash", "error")], 2000);
    expect(text.split("\n")).toEqual([
      "## Tool receipts (execution record)",
      "Cite receipt ids (e.g. [r1 write_file]) in your final report for every claim about an action you took.",
      "Execution evidence only — receipts record that a call happened and its status; they do not validate claim correctness or task acceptance.",
      "- [r1] write_file status=success args_sha256=0123456789abcdef output_sha256=fedcba9876543210 bytes=101",
      "- [r2] bash status=error args_sha256=0123456789abcdef output_sha256=fedcba9876543210 bytes=102",
    ]);
    expect(shown).toEqual(["r1", "r2"]);
  });

  it("renders nothing when there are no receipts", () => {
    expect(renderReceiptLedger([], 2000)).toEqual({ text: "", shown: [] });
  });

  it("keeps the newest lines that fit after the omission marker, with their original ids, within the budget", () => {
    const receipts = Array.from({ length: 40 }, (_, i) => receipt(i + 1));
    const { text, shown } = renderReceiptLedger(receipts, 2000);
    expect(text.length).toBeLessThanOrEqual(2000);
    const lines = text.split("\n");
    expect(lines.slice(0, 3).join("\n")).toBe(LEDGER_HEADER);
    expect(lines[3]).toBe(LEDGER_OMITTED);
    expect(lines.slice(4)).toEqual(shown.map((id) => receiptLine(receipts[Number(id.slice(1)) - 1]!)));
    expect(shown.at(-1)).toBe("r40");
    // Consecutive newest ids, and one more line would not have fit.
    const first = Number(shown[0]!.slice(1));
    expect(shown).toEqual(Array.from({ length: 40 - first + 1 }, (_, i) => `r${first + i}`));
    expect(text.length + 1 + receiptLine(receipts[first - 2]!).length).toBeGreaterThan(2000);
  });

  it("counts the whole message, header included, against the budget", () => {
    const receipts = [receipt(1), receipt(2)];
    const full = renderReceiptLedger(receipts, 2000).text;
    expect(renderReceiptLedger(receipts, full.length).shown).toEqual(["r1", "r2"]);
    const cut = renderReceiptLedger(receipts, full.length - 1);
    expect(cut.shown).toEqual(["r2"]);
    expect(cut.text).toBe([LEDGER_HEADER, LEDGER_OMITTED, receiptLine(receipts[1]!)].join("\n"));
  });
});

describe("insertAfterLeadingSystem", () => {
  const ledger = new HumanMessage("ledger");
  it("inserts after the leading system messages", () => {
    const messages = [new SystemMessage("a"), new SystemMessage("b"), new HumanMessage("hi"), new SystemMessage("late")];
    expect(insertAfterLeadingSystem(messages, ledger).map((m) => m.content)).toEqual(["a", "b", "ledger", "hi", "late"]);
  });
  it("inserts first when there is no system message", () => {
    expect(insertAfterLeadingSystem([new HumanMessage("hi")], ledger).map((m) => m.content)).toEqual(["ledger", "hi"]);
  });
});

describe("hasDelegated (delegation_only rule)", () => {
  const taskCall = new AIMessage({ content: "", tool_calls: [{ id: "t1", name: "task", args: {} }] });
  const otherCall = new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "bash", args: {} }] });
  it("is true when a task call is in the messages", () => {
    expect(hasDelegated([new HumanMessage("go"), otherCall, taskCall], [])).toBe(true);
  });
  it("is true when this run has a task receipt (the call may have been compacted away)", () => {
    expect(hasDelegated([new HumanMessage("go")], [receipt(1, "task")])).toBe(true);
  });
  it("is false without either", () => {
    expect(hasDelegated([new HumanMessage("task"), otherCall], [receipt(1, "bash")])).toBe(false);
  });
});
