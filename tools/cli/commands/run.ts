import { resolve } from "node:path";
import { KeelError, CompositionError } from "../../../kernel/errors.js";
import { isStackPath } from "../../stacks/load-stack.js";
import { loadScenarioFile } from "../../scenario/load-scenario.js";
import { runScenario } from "../../scenario/run-scenario.js";
import { summarizeReport } from "../../scenario/run-report.js";
import { parseCommandArgs, wantsJson } from "../args.js";
import { EXIT_OK, failUsage, printJson, type CommandIO } from "../io.js";
import { reportProblems } from "./compose.js";

const USAGE = "usage: keel run SCENARIO [--stack STACK] [--json]";

/**
 * `keel run`: exit 0 whenever the run finished (the outcome is in the report), 1 when the
 * stack does not compose, 2 for an invalid scenario (stderr names the JSON pointer).
 */
export async function runCommand(args: string[], io: CommandIO): Promise<number> {
  const json = wantsJson(args);
  try {
    const { values, positionals } = parseCommandArgs(args, { stack: { type: "string" }, plugin: { type: "string", multiple: true }, json: { type: "boolean" } }, USAGE);
    if (positionals.length !== 1) throw new KeelError("KEEL_ERR_CLI_USAGE", `expected one SCENARIO file; ${USAGE}`);
    const { scenario, baseDir } = loadScenarioFile(positionals[0]!, io.cwd);
    let report;
    try {
      report = await runScenario(scenario, { baseDir, pluginFiles: values.plugin ?? [], ...(values.stack ? { stack: isStackPath(values.stack) ? resolve(io.cwd, values.stack) : values.stack } : {}) });
    } catch (error) {
      if (error instanceof CompositionError) return reportProblems(io, json, error);
      throw error;
    }
    if (json) printJson(io, report);
    else io.out(summarizeReport(report));
    return EXIT_OK;
  } catch (error) {
    return failUsage(io, json, error);
  }
}
