import { resolve } from "node:path";
import { KeelError, CompositionError } from "../../../kernel/errors.js";
import { isStackPath } from "../../stacks/load-stack.js";
import { loadScenarioFile } from "../../scenario/load-scenario.js";
import { runScenario } from "../../scenario/run-scenario.js";
import { REPORT_VERSIONS, DEFAULT_REPORT_VERSION, summarizeReport, type ReportVersion } from "../../scenario/run-report.js";
import { failsOn, parseFailOn } from "../../scenario/fail-on.js";
import { parseSpecArgs, wantsJson } from "../args.js";
import { helpRequested, renderHelp } from "../command-spec.js";
import { EXIT_FAILED, EXIT_OK, failUsage, printJson, type CommandIO } from "../io.js";
import { RUN_SPEC } from "../specs.js";
import { reportProblems } from "./compose.js";
import { startHostTracing } from "../../../plugins/tracing/host-tracing.js";

const USAGE = RUN_SPEC.usage;

/** `--report-version`: the run-report version `--json` prints (default 2, model requests as deltas; 1 expands them). */
export function parseReportVersion(value: string | undefined): ReportVersion {
  if (value === undefined) return DEFAULT_REPORT_VERSION;
  const version = REPORT_VERSIONS.find((v) => String(v) === value);
  if (version === undefined) throw new KeelError("KEEL_ERR_CLI_USAGE", `--report-version must be one of ${REPORT_VERSIONS.join(", ")}, got \`${value}\`; ${USAGE}`);
  return version;
}

/** Exit codes after SIGINT / SIGTERM cancelled the run (128 + the signal's number, as shells report). */
const SIGNAL_EXIT = { SIGINT: 130, SIGTERM: 143 } as const;

/**
 * `keel run`: exit 0 whenever the run finished (the outcome is in the report), 1 when the
 * stack does not compose or, with `--fail-on LEVEL`, when the outcome is at least that bad
 * (the report is still printed), 2 for an invalid scenario (stderr names the JSON pointer).
 * SIGINT / SIGTERM cancel the run: its report is printed, then exit 130 / 143.
 */
export async function runCommand(args: string[], io: CommandIO): Promise<number> {
  if (helpRequested(args)) return (io.out(renderHelp(RUN_SPEC)), EXIT_OK);
  const json = wantsJson(args);
  try {
    const { values, positionals } = parseSpecArgs(args, RUN_SPEC);
    const failOn = parseFailOn(values["fail-on"]);
    const reportVersion = parseReportVersion(values["report-version"]);
    if (positionals.length !== 1) throw new KeelError("KEEL_ERR_CLI_USAGE", `expected one SCENARIO file; ${USAGE}`);
    const { scenario, baseDir } = loadScenarioFile(positionals[0]!, io.cwd);
    // `--otlp-endpoint` (or OTEL_EXPORTER_OTLP_ENDPOINT): the run's spans, flushed before the report is printed.
    const tracing = await startHostTracing(values["otlp-endpoint"], process.env);
    const cancel = cancelOnSignals();
    let report;
    try {
      report = await runScenario(scenario, {
        reportVersion,
        baseDir,
        pluginFiles: values.plugin ?? [],
        signal: cancel.signal,
        ...(values.workspaces ? { workspacesDir: resolve(io.cwd, values.workspaces) } : {}),
        ...(values.stack ? { stack: isStackPath(values.stack) ? resolve(io.cwd, values.stack) : values.stack } : {}),
        ...(tracing.observer ? { observer: tracing.observer } : {}),
      });
    } catch (error) {
      if (error instanceof CompositionError) return reportProblems(io, json, error);
      throw error;
    } finally {
      cancel.dispose();
      await tracing.shutdown();
    }
    if (json) printJson(io, report);
    else io.out(summarizeReport(report));
    if (cancel.received) return SIGNAL_EXIT[cancel.received];
    return failOn && failsOn(report.outcome.status, failOn) ? EXIT_FAILED : EXIT_OK;
  } catch (error) {
    return failUsage(io, json, error);
  }
}

/** SIGINT / SIGTERM abort the run (so it ends `cancelled`, reports, and removes its workspace) instead of killing the process. */
function cancelOnSignals() {
  const controller = new AbortController();
  const state = { signal: controller.signal, received: undefined as keyof typeof SIGNAL_EXIT | undefined, dispose: () => {} };
  const handlers = (Object.keys(SIGNAL_EXIT) as Array<keyof typeof SIGNAL_EXIT>).map((name) => {
    const handler = () => {
      state.received ??= name;
      controller.abort(new Error(`keel run: ${name} received`));
    };
    process.on(name, handler);
    return () => process.off(name, handler);
  });
  state.dispose = () => handlers.forEach((off) => off());
  return state;
}
