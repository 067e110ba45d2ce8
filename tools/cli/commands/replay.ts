import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import { validate } from "../../../contracts/registry.js";
import type { RunReportV1 } from "../../../contracts/run-report/v1.js";
import type { StatusV2 } from "../../../contracts/status/v2.js";
import { CompositionError, KeelError } from "../../../kernel/errors.js";
import { toReportVersion } from "../../../kernel/report/run-report.js";
import { assertScenario } from "../../scenario/load-scenario.js";
import { compareReplay, type ReplayComparison } from "../../scenario/replay-compare.js";
import { reportToScenario } from "../../scenario/replay-scenario.js";
import { runScenario } from "../../scenario/run-scenario.js";
import { isStackPath } from "../../stacks/load-stack.js";
import { parseSpecArgs, wantsJson } from "../args.js";
import { helpRequested, renderHelp } from "../command-spec.js";
import { EXIT_OK, failUsage, printJson, readJsonFile, type CommandIO } from "../io.js";
import { REPLAY_SPEC } from "../specs.js";
import { reportProblems } from "./compose.js";

const USAGE = REPLAY_SPEC.usage;

/**
 * `keel replay`: a recorded run's report becomes a scenario@1 that is run again (on another
 * stack with `--stack`); exit 0 whenever the replay ran, 1 when its stack does not compose,
 * 2 for bad input.
 */
export async function replayCommand(args: string[], io: CommandIO): Promise<number> {
  if (helpRequested(args)) return (io.out(renderHelp(REPLAY_SPEC)), EXIT_OK);
  const json = wantsJson(args);
  try {
    const { values, positionals } = parseSpecArgs(args, REPLAY_SPEC);
    const recorded = await loadRecording(values, positionals, io.cwd);
    const stack = values.stack === undefined ? undefined : isStackPath(values.stack) ? resolve(io.cwd, values.stack) : values.stack;
    const converted = reportToScenario(recorded, stack === undefined ? {} : { stack });
    if (values.workspace !== undefined) converted.workspace = { files: readWorkspaceDir(resolve(io.cwd, values.workspace), values.workspace) };
    const scenario = assertScenario(converted, "the replay's scenario");
    let exported: string | undefined;
    if (values.export !== undefined) {
      exported = resolve(io.cwd, values.export);
      try {
        writeFileSync(exported, JSON.stringify(scenario, null, 2) + "\n");
      } catch (error) {
        throw new KeelError("KEEL_ERR_CLI_FILE", `cannot write \`${values.export}\`: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
      }
    }
    let replayed: RunReportV1;
    try {
      replayed = (await runScenario(scenario, { reportVersion: 1, baseDir: io.cwd, pluginFiles: values.plugin ?? [] })) as RunReportV1;
    } catch (error) {
      if (error instanceof CompositionError) return reportProblems(io, json, error);
      throw error;
    }
    const comparison = compareReplay(recorded, replayed);
    if (json) {
      printJson(io, {
        recorded: recorded.outcome,
        replayed: replayed.outcome,
        same: comparison.same,
        report: replayed,
        ...(comparison.divergence ? { divergence: comparison.divergence } : {}),
        ...(exported ? { exported } : {}),
      });
    } else io.out(sideBySide(recorded, replayed, comparison, exported));
    return EXIT_OK;
  } catch (error) {
    return failUsage(io, json, error);
  }
}

/** Every regular file under `dir` (UTF-8), by its POSIX path relative to `dir`. */
function readWorkspaceDir(dir: string, label: string): Record<string, string> {
  let isDir = false;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    // Reported below.
  }
  if (!isDir) throw new KeelError("KEEL_ERR_CLI_FILE", `--workspace \`${label}\` is not a directory`);
  const files: Record<string, string> = {};
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = join(at, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile()) files[relative(dir, full).split(sep).join("/")] = readFileSync(full, "utf8");
    }
  };
  walk(dir);
  return files;
}

type Values = { url?: string; "api-key"?: string; report?: string };

/** The recorded report, as run-report@1: from `--report FILE`, or fetched for THREAD/RUN from `--url`. */
async function loadRecording(values: Values, positionals: string[], cwd: string): Promise<RunReportV1> {
  let raw: unknown;
  let label: string;
  if (values.report !== undefined) {
    if (positionals.length > 0 || values.url !== undefined) throw new KeelError("KEEL_ERR_CLI_USAGE", `give either --report FILE or THREAD/RUN with --url, not both; ${USAGE}`);
    raw = readJsonFile(resolve(cwd, values.report));
    label = `\`${values.report}\``;
  } else {
    const ref = positionals[0];
    if (positionals.length !== 1 || ref === undefined) throw new KeelError("KEEL_ERR_CLI_USAGE", `expected one THREAD/RUN (or --report FILE); ${USAGE}`);
    const match = /^([^/\s]+)\/([^/\s]+)$/.exec(ref);
    if (!match) throw new KeelError("KEEL_ERR_CLI_USAGE", `\`${ref}\` is not THREAD/RUN (a thread id, a slash, a run id); ${USAGE}`);
    if (values.url === undefined) throw new KeelError("KEEL_ERR_CLI_USAGE", `THREAD/RUN needs --url, the gateway to fetch the report from (or pass --report FILE); ${USAGE}`);
    raw = await fetchReport(values.url, match[1]!, match[2]!, values["api-key"] ?? process.env.KEEL_API_KEY);
    label = `the report of ${ref}`;
  }
  const report = toReportVersion(raw, 1);
  const result = validate("run-report@1", report);
  if (!result.valid) {
    const issue = result.errors[0]!;
    const pointer = issue.pointer || "/";
    throw new KeelError("KEEL_ERR_REPLAY_REPORT", `${label} is not a run report (run-report@1 or @2): at \`${pointer}\`: ${issue.message}`, { pointer });
  }
  return report as RunReportV1;
}

async function fetchReport(base: string, threadId: string, runId: string, apiKey: string | undefined): Promise<unknown> {
  let url: URL;
  try {
    url = new URL(`threads/${encodeURIComponent(threadId)}/runs/${encodeURIComponent(runId)}/report?version=1`, base.endsWith("/") ? base : `${base}/`);
  } catch {
    throw new KeelError("KEEL_ERR_CLI_USAGE", `--url \`${base}\` is not a URL; ${USAGE}`);
  }
  let response: Response;
  try {
    response = await fetch(url, { headers: apiKey ? { "x-api-key": apiKey } : {} });
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
    throw new KeelError("KEEL_ERR_REPLAY_FETCH", `cannot reach ${url.origin}: ${cause}; check --url`);
  }
  const text = await response.text();
  if (!response.ok) {
    let detail = text.slice(0, 300);
    try {
      const body = JSON.parse(text) as { code?: string; message?: string; detail?: string };
      detail = [body.code, body.message ?? body.detail].filter(Boolean).join(": ") || detail;
    } catch {
      // Not JSON: the body's start is the detail.
    }
    const hint = response.status === 404 ? " (an unknown run, or one that has not finished)" : response.status === 401 || response.status === 403 ? " (pass --api-key)" : "";
    throw new KeelError("KEEL_ERR_REPLAY_FETCH", `GET ${url.pathname} answered ${response.status}${hint}: ${detail}`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new KeelError("KEEL_ERR_REPLAY_FETCH", `GET ${url.pathname} did not answer JSON: ${(error as Error).message}`);
  }
}

function stops(o: StatusV2): string {
  return o.stopReasons.map((s) => `${s.reason} by ${s.by}${s.turn === undefined ? "" : ` (turn ${s.turn})`}`).join(", ") || "none";
}

/** The text output: both outcomes in two columns, then the verdict and the first divergence. */
export function sideBySide(recorded: RunReportV1, replayed: RunReportV1, comparison: ReplayComparison, exported?: string): string {
  const cut = (t: string) => (t.length > 60 ? `${t.slice(0, 60)}…` : t).replace(/\n/g, " ");
  const rows: Array<[string, string, string]> = [
    ["", "recorded", "replayed"],
    ["status", recorded.outcome.status, replayed.outcome.status],
    ["primary stop", recorded.outcome.primaryStopReason ?? "none", replayed.outcome.primaryStopReason ?? "none"],
    ["stop reasons", stops(recorded.outcome), stops(replayed.outcome)],
    ["turns", String(recorded.turns.total), String(replayed.turns.total)],
    ["tokens", String(recorded.usage.totalTokens), String(replayed.usage.totalTokens)],
    ["text", cut(recorded.outcome.text), cut(replayed.outcome.text)],
  ];
  const w0 = Math.max(...rows.map((r) => r[0].length)) + 2;
  const w1 = Math.max(...rows.map((r) => r[1].length)) + 2;
  const lines = rows.map(([a, b, c]) => `${a.padEnd(w0)}${b.padEnd(w1)}${c}`.trimEnd());
  lines.push("", `same: ${comparison.same ? "yes" : "no"}`);
  const d = comparison.divergence;
  lines.push(d ? `diverged at ${d.agent} turn ${d.turn}: ${d.reason}` : "no divergence: every model request and stop matched the recording");
  if (exported) lines.push(`scenario written to ${exported}`);
  return lines.join("\n");
}
