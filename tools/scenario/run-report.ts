import type { JournalRecord } from "../../kernel/loop/run-scope.js";
import type { TokenUsage } from "../../kernel/loop/normalize.js";
import type { ChildAgentResult } from "../../kernel/ports/agents.js";
import type { RunReport } from "../../kernel/report/run-report.js";

// The report builder lives in the kernel (the run service builds reports too); re-exported here so existing imports keep working.
export { buildRunReport, turnsByAgent, type RunReport, type RunReportInput } from "../../kernel/report/run-report.js";

/**
 * Add delegated children to a lead's report: `receipts` per child agent path (from each
 * child's final values) and `usage.byAgent` per child path (its answered model calls in the
 * shared journal, so a child cut short still counts), with the totals recomputed.
 */
export function withChildren(report: RunReport, journal: readonly JournalRecord[], children: ReadonlyMap<string, ChildAgentResult>): RunReport {
  const receipts = { ...report.receipts };
  const byAgent: Record<string, TokenUsage> = { ...report.usage.byAgent };
  for (const [path, child] of children) {
    receipts[path] = ((child.values.receipts as Record<string, unknown>[] | undefined) ?? []).map((r) => ({ ...r }));
    byAgent[path] = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
  }
  for (const entry of journal) {
    if (entry.kind !== "model_call" || !entry.usage || !children.has(entry.agent)) continue;
    const sum = byAgent[entry.agent]!;
    byAgent[entry.agent] = {
      inputTokens: sum.inputTokens + entry.usage.inputTokens,
      outputTokens: sum.outputTokens + entry.usage.outputTokens,
      totalTokens: sum.totalTokens + entry.usage.totalTokens,
    };
  }
  const totals = Object.values(byAgent).reduce(
    (t, u) => ({ inputTokens: t.inputTokens + u.inputTokens, outputTokens: t.outputTokens + u.outputTokens, totalTokens: t.totalTokens + u.totalTokens }),
    { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
  );
  return { ...report, receipts, usage: { ...totals, byAgent } };
}

/** The text summary `keel run` prints without `--json`. */
export function summarizeReport(report: RunReport): string {
  const o = report.outcome;
  const turns = Object.entries(report.turns)
    .filter(([k]) => k !== "total")
    .map(([k, v]) => `${k}=${v}`)
    .join(" ");
  const lines = [
    `scenario: ${report.scenario}  (thread ${report.threadId}, run ${report.runId})`,
    `outcome:  ${o.status}${o.primaryStopReason ? ` (primary stop reason: ${o.primaryStopReason})` : ""}`,
    ...(o.stopReasons.length > 0 ? [`stop reasons: ${o.stopReasons.map((r) => `${r.reason} by ${r.by}`).join(", ")}`] : []),
    ...(o.error ? [`error:    ${o.error.type}: ${o.error.message}`] : []),
    `text:     ${o.text.length > 300 ? `${o.text.slice(0, 300)}…` : o.text}`,
    `turns:    ${turns || "none"} (total ${report.turns.total})`,
    `usage:    ${report.usage.inputTokens} in / ${report.usage.outputTokens} out / ${report.usage.totalTokens} total tokens`,
    `files:    ${Object.keys(report.workspace.files).length} in the workspace`,
    `stack:    ${report.composition.lead.join(" → ")}`,
  ];
  return lines.join("\n");
}
