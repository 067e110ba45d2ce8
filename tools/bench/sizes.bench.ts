import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { compose } from "../../kernel/compose/compose.js";
import { RunScope, steppingClock, type JournalRecord, type ModelRequestRecord } from "../../kernel/loop/run-scope.js";
import { createAgentRuntime } from "../../kernel/loop/runtime.js";
import { buildRunReport, buildRunReportV1, type RunReportInput } from "../../kernel/report/run-report.js";
import { loadStack } from "../stacks/load-stack.js";
import { ScriptedChatModel, type ScriptedAgent } from "../testing/scripted-model.js";

/** Turns per run (the N), on the lead stack as shipped (summarization compacts). */
const SIZES = [50, 200, 400, 1_000] as const;
/** Turns per run with summarization out of reach: the history grows every turn, the worst case for @1. Kept small: the run itself is quadratic. */
const UNCOMPACTED_SIZES = [50, 200] as const;

/** The lead stack's guards and budgets raised past N, so a scripted run of N writes is not stopped. */
const CONFIG = {
  "loop-detection": { toolWarnAt: 100_000, toolHardLimit: 100_000 },
  "token-budget": { limit: 1_000_000_000 },
};
const UNCOMPACTED = { summarization: { triggerMessages: 1_000_000, contextTokens: 1_000_000_000 } };

/** `turns` tool-call turns (each a new file, so no guard intervenes), then a final answer. */
function script(turns: number): ScriptedAgent {
  const usage = { input_tokens: 200, output_tokens: 20 };
  return {
    turns: [
      ...Array.from({ length: turns }, (_, i) => ({ toolCalls: [{ id: `c${i + 1}`, name: "write_file", args: { path: `notes/f${i + 1}.md`, content: `# Note ${i + 1}\nLine ${i + 1} of the run.\n` } }], usage })),
      { content: "Done: wrote the notes.", usage },
    ],
  };
}

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value) ?? "", "utf8");

interface Sizes {
  turns: number;
  status: string;
  report2: number;
  report1: number;
  journal: number;
  receiptsState: number;
  runMs: number;
  runCpuMs: number;
  build2Ms: number;
  build1Ms: number;
}

/** One lead-stack run of `turns` scripted turns: the report (@2 and @1), the journal as the run store writes it, the receipts channel at the end. */
async function measure(turns: number, compaction = true): Promise<Sizes> {
  const root = mkdtempSync(join(tmpdir(), "keel-bench-sizes-"));
  try {
    const lead = await loadStack("lead");
    const composition = compose(lead.stack, { plugins: lead.plugins, config: [CONFIG, compaction ? {} : UNCOMPACTED, { workspace: { root } }] });
    const journal: JournalRecord[] = [];
    const modelRequests: ModelRequestRecord[] = [];
    const scope = new RunScope(`run-${turns}`, `thread-${turns}`, steppingClock(Date.parse("2026-01-01T00:00:00.000Z")), {
      journal: (entry) => journal.push(entry),
      modelRequest: (record) => modelRequests.push(record),
    });
    const runtime = createAgentRuntime(composition, { model: new ScriptedChatModel({ script: script(turns) }), maxTurns: turns + 10 });
    const started = performance.now();
    const cpu = process.cpuUsage();
    const result = await runtime.run({ threadId: scope.threadId, runId: scope.runId, input: "Write the notes.", scope });
    const runMs = performance.now() - started;
    const used = process.cpuUsage(cpu);
    const runCpuMs = (used.user + used.system) / 1000;
    const input: RunReportInput = { scenario: "sizes", threadId: scope.threadId, runId: scope.runId, result, events: [], journal, modelRequests, compositions: { lead: composition } };
    let t = performance.now();
    const report2 = bytes(buildRunReport(input));
    const build2Ms = performance.now() - t;
    t = performance.now();
    const report1 = bytes(buildRunReportV1(input));
    const build1Ms = performance.now() - t;
    const journalBytes = journal.reduce((sum, entry) => sum + bytes(entry) + 1, 0);
    const receiptsState = bytes(result.values.receipts ?? []) + bytes(result.values.receiptCounts ?? {}) + bytes(result.values.receiptIndex ?? []);
    return { turns, status: result.outcome.status, report2, report1, journal: journalBytes, receiptsState, runMs, runCpuMs, build2Ms, build1Ms };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
const perTurn = (n: number, turns: number) => `${Math.round(n / turns)}`;

/**
 * `sizes`: bytes of a run's report (run-report@2 as served by default, and @1, every model
 * request whole, which is what the report was before @2) and of its journal (JSON lines as
 * the run store holds them) on the `lead` stack with a scripted model, at N = 50 … 1,000
 * turns. Bytes per turn show linearity: flat across N is linear, growing is quadratic.
 * Sizes are deterministic (fixed clock, scripted model), so one run per N is enough.
 */
export async function benchSizes(): Promise<string[]> {
  const rows: Sizes[] = [];
  for (const n of SIZES) rows.push(await measure(n));
  const uncompacted: Sizes[] = [];
  for (const n of UNCOMPACTED_SIZES) uncompacted.push(await measure(n, false));
  const header = "N     status     report@2     B/turn  report@1      B/turn  @2/@1   journal    B/turn  receipts state  run wall/CPU s  build @2 / @1 ms";
  const lines = [
    "sizes: run-report and journal bytes per run, lead stack as shipped, scripted model (one write_file per turn); bytes/turn flat = linear in N",
    header,
    ...rows.map(row),
    "sizes, summarization out of reach (the history grows every turn: the worst case for @1)",
    header,
    ...uncompacted.map(row),
  ];
  const last = rows.at(-1)!;
  const first = rows[0]!;
  lines.push(
    `bytes/turn at N=${last.turns} vs N=${first.turns}: report@2 ${(last.report2 / last.turns / (first.report2 / first.turns)).toFixed(2)}×, report@1 ${(last.report1 / last.turns / (first.report1 / first.turns)).toFixed(2)}×, journal ${(last.journal / last.turns / (first.journal / first.turns)).toFixed(2)}×`,
    `target: default report (run-report@2) of a ${last.turns}-turn run under 2 MB: ${(last.report2 / 1024 / 1024).toFixed(2)} MB ${last.report2 < 2 * 1024 * 1024 ? "(met)" : "(NOT met)"}`,
  );
  return lines;
}

function row(r: Sizes): string {
  return [
        String(r.turns).padEnd(5),
        r.status.padEnd(10),
        kb(r.report2).padStart(10),
        perTurn(r.report2, r.turns).padStart(8),
        kb(r.report1).padStart(11),
        perTurn(r.report1, r.turns).padStart(8),
        (r.report2 / r.report1).toFixed(3).padStart(7),
        kb(r.journal).padStart(10),
        perTurn(r.journal, r.turns).padStart(7),
        kb(r.receiptsState).padStart(15),
        `${(r.runMs / 1000).toFixed(1)} / ${(r.runCpuMs / 1000).toFixed(1)}`.padStart(14),
    `${Math.round(r.build2Ms)} / ${Math.round(r.build1Ms)}`.padStart(18),
  ].join("  ");
}
