/**
 * run-report@2 (and its @1 view) assembled from a run's result, journal, model requests
 * and events. Pure: the scenario runner (`keel run`) and the run service's runtime
 * executor both build their reports with it. The plugin sections (`receipts`,
 * `delegations`, `workspace.files`) come from the plugins' `report` hooks
 * (plugin-sections.ts). @2 stores each model request as a delta against the agent's
 * previous one (contracts/run-report/migrate.ts), so a report grows linearly in turns.
 */
import type { BaseMessage } from "@langchain/core/messages";
import type { JournalGap, ModelRequest, ReportMessage, RunReportV1 } from "../../contracts/run-report/v1.js";
import type { RunReportV2 } from "../../contracts/run-report/v2.js";
import { encodeModelRequests, expandModelRequests } from "../../contracts/run-report/migrate.js";
import type { Composition } from "../compose/types.js";
import type { ChildAgentResult } from "../ports/agents.js";
import type { RunResult } from "../loop/runtime.js";
import type { JournalRecord, ModelRequestRecord, StreamEventRecord } from "../loop/run-scope.js";
import type { TokenUsage } from "../loop/normalize.js";
import { SUMMARY_CALL_NAME } from "../loop/summary-call.js";
import { pluginSections } from "./plugin-sections.js";
import { toReportMessage } from "./report-message.js";

/** run-report@1: every model request with its whole message list. */
export type RunReport = RunReportV1;
export type { JournalGap, RunReportV2 };

/** The report versions a host can serve: 2 (default, model requests as deltas) and 1 (expanded). */
export const REPORT_VERSIONS = [1, 2] as const;
export type ReportVersion = (typeof REPORT_VERSIONS)[number];
export const DEFAULT_REPORT_VERSION: ReportVersion = 2;

/**
 * The journal-incomplete marker: when the run store could not write every journal entry,
 * the report says so (`journalIncomplete: true`) and what is missing (`journalGap`). The
 * report's own records are complete; only the store's journal (`…/journal`) lacks entries.
 */
export function withJournalGap<T extends Record<string, unknown>>(report: T, gap: JournalGap | null): T {
  if (gap === null) return report;
  return { ...report, journalIncomplete: true, journalGap: { ...gap } };
}

export interface RunReportInput {
  scenario: string;
  threadId: string;
  runId: string;
  result: RunResult;
  events: StreamEventRecord[];
  journal: JournalRecord[];
  modelRequests: ModelRequestRecord[];
  /** `workspace.files` as listed by the host; default: what the lead's plugins contribute (`report` hooks). */
  workspaceFiles?: Record<string, { bytes: number; sha256: string }>;
  compositions: { lead: Composition; subagent?: Composition };
}

/** Model calls per agent path: distinct turns in the journal (retries of one turn count once; summary calls are not turns). */
export function turnsByAgent(journal: readonly JournalRecord[]): Record<string, number> & { total: number } {
  const seen = new Map<string, Set<number>>();
  for (const entry of journal) {
    if (entry.kind !== "model_call" || entry.name === SUMMARY_CALL_NAME) continue;
    let turns = seen.get(entry.agent);
    if (!turns) seen.set(entry.agent, (turns = new Set()));
    turns.add(entry.turn);
  }
  const out: Record<string, number> = {};
  let total = 0;
  for (const [agent, turns] of seen) {
    out[agent] = turns.size;
    total += turns.size;
  }
  return { ...out, total };
}

function usageReport(byAgent: Record<string, TokenUsage>) {
  const totals = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
  for (const usage of Object.values(byAgent)) {
    totals.inputTokens += usage.inputTokens;
    totals.outputTokens += usage.outputTokens;
    totals.totalTokens += usage.totalTokens;
  }
  return { ...totals, byAgent };
}

/** The model requests in run-report@1's shape; one report message per distinct message object, so the delta encoder matches by identity first. */
function reportRequests(records: readonly ModelRequestRecord[]): ModelRequest[] {
  const converted = new WeakMap<BaseMessage, ReportMessage>();
  const convert = (message: BaseMessage): ReportMessage => {
    let out = converted.get(message);
    if (out === undefined) converted.set(message, (out = toReportMessage(message)));
    return out;
  };
  return records.map((r) => ({ agent: r.agent, turn: r.turn, messages: r.messages.map(convert), tools: r.tools }));
}

/**
 * Assemble run-report@2 from the run's result, journal and events: run-report@1's fields,
 * with `modelRequests` stored as deltas. `toReportVersion(report, 1)` gives the @1 view.
 */
export function buildRunReport(input: RunReportInput): RunReportV2 {
  const v1 = buildRunReportV1({ ...input, modelRequests: [] });
  return { ...v1, version: 2, modelRequests: encodeModelRequests(reportRequests(input.modelRequests)) };
}

/** Assemble run-report@1 (every model request whole) from the run's result, journal and events. */
export function buildRunReportV1(input: RunReportInput): RunReport {
  const { result } = input;
  const values = result.values;
  const sections = pluginSections(input.compositions.lead, { agent: "lead", threadId: input.threadId, values });
  return {
    contract: "run-report",
    version: 1,
    scenario: input.scenario,
    threadId: input.threadId,
    runId: input.runId,
    outcome: result.outcome as RunReport["outcome"],
    turns: turnsByAgent(input.journal) as RunReport["turns"],
    usage: usageReport((values.usage as Record<string, TokenUsage> | undefined) ?? {}),
    delegations: sections.delegations,
    receipts: { lead: sections.receipts },
    modelRequests: input.modelRequests.map((r) => ({ agent: r.agent, turn: r.turn, messages: r.messages.map(toReportMessage), tools: r.tools })),
    messages: result.messages.map(toReportMessage),
    events: input.events.map((e) => ({ id: e.id, runId: e.runId, event: e.event, data: e.data })) as RunReport["events"],
    workspace: { files: input.workspaceFiles ?? sections.workspaceFiles },
    composition: {
      lead: [...input.compositions.lead.order],
      ...(input.compositions.subagent ? { subagent: [...input.compositions.subagent.order] } : {}),
    },
  };
}

/**
 * Add delegated children to a lead's report: `receipts` per child agent path (what the
 * plugins of the children's stack, `subagent`, contribute from each child's final values)
 * and `usage.byAgent` per child path (its answered model calls in the shared journal, so a
 * child cut short still counts), with the totals recomputed.
 */
export function withChildren<R extends RunReport | RunReportV2>(report: R, journal: readonly JournalRecord[], children: ReadonlyMap<string, ChildAgentResult>, subagent: Composition): R {
  const receipts = { ...report.receipts };
  const byAgent: Record<string, TokenUsage> = { ...report.usage.byAgent };
  for (const [path, child] of children) {
    receipts[path] = pluginSections(subagent, { agent: path, threadId: report.threadId, values: child.values }).receipts;
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

/**
 * A run report (run-report@1 or @2, as stored) in the version asked for: @2 → @1 expands
 * the model requests, @1 → @2 encodes them; anything else is returned as is. Pure, no
 * validation (the contracts' `upgrade`/`project` validate; this is the hot path of a
 * report route).
 */
export function toReportVersion(report: unknown, version: ReportVersion): unknown {
  if (typeof report !== "object" || report === null) return report;
  const r = report as { contract?: unknown; version?: unknown; modelRequests?: unknown };
  if (r.contract !== "run-report" || r.version === version || !Array.isArray(r.modelRequests)) return report;
  if (r.version === 2 && version === 1) return { ...r, version: 1, modelRequests: expandModelRequests(r.modelRequests as RunReportV2["modelRequests"]) };
  if (r.version === 1 && version === 2) return { ...r, version: 2, modelRequests: encodeModelRequests(r.modelRequests as ModelRequest[]) };
  return report;
}
