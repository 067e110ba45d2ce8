import type { RunReport, RunReportV2 } from "../../kernel/report/run-report.js";

// The report builder lives in the kernel (the run service builds reports too); re-exported here so existing imports keep working.
export {
  buildRunReport,
  buildRunReportV1,
  turnsByAgent,
  withChildren,
  toReportVersion,
  REPORT_VERSIONS,
  DEFAULT_REPORT_VERSION,
  type ReportVersion,
  type RunReport,
  type RunReportV2,
  type RunReportInput,
} from "../../kernel/report/run-report.js";

/** The text summary `keel run` prints without `--json`. */
export function summarizeReport(report: RunReport | RunReportV2): string {
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
