import { criterionCommandProblem, matchRecordedCommand } from "./command-match.js";
import { doesNotHold, holds, unverified, type BashRunEvidence, type LeafOutcome } from "./evidence.js";
import type { AcceptanceOptions } from "./options.js";
import { outputShapes } from "./test-shapes.js";

function shown(command: string): string {
  return `\`${command.length > 120 ? `${command.slice(0, 117)}...` : command}\``;
}

/**
 * `tests_passed:<command>` over the recorded bash runs (plugins/acceptance/README.md). The
 * newest run of the command within the last `evidenceWindow` runs decides:
 * - truncated command record, unprovable command line, persistent shell → UNVERIFIED;
 * - timed out, killed, non-zero exit, or a fail shape in the output tail → does not hold;
 * - exit 0 with a zero-test shape, or with no summary shape at all → UNVERIFIED;
 * - exit 0 with a pass shape and neither a fail nor a zero shape → holds.
 *
 * @example
 * checkTestsPassed("npm test", [{ command: "npm test", exitCode: 0, outputTail: "5 passed", … }], options)
 * // { checked: true, holds: true, detail: "exit 0; output shows `5 passed`" }
 */
export function checkTestsPassed(command: string, bashRuns: readonly BashRunEvidence[], options: AcceptanceOptions): LeafOutcome {
  const problem = criterionCommandProblem(command);
  if (problem !== undefined) return unverified(problem);
  if (command.length > options.commandChars) {
    return unverified(`the criterion command is longer than ${options.commandChars} characters, more than a run record keeps`);
  }
  const window = bashRuns.slice(-options.evidenceWindow);
  for (let i = window.length - 1; i >= 0; i--) {
    const run = window[i]!;
    const truncated = run.commandTruncated || run.command.length > options.commandChars;
    const match = matchRecordedCommand(command, run.command.slice(0, options.commandChars));
    if (match.kind === "none") continue;
    const which = `the latest run of it, ${shown(run.command)},`;
    if (truncated) return unverified(`${which} has a truncated command record, so what ran after it is unknown`);
    if (match.kind === "unprovable") return unverified(`${which} cannot prove it: ${match.reasons.join("; ")}`);
    if (run.persistentShell) return unverified(`${which} ran in a persistent shell, where earlier commands may have changed what ran`);
    if (run.timedOut) return doesNotHold(`${which} timed out`);
    if (run.exitCode === null) return doesNotHold(`${which} was killed (no exit status)`);
    const shapes = outputShapes(run.outputTail.slice(-options.outputChars));
    if (run.exitCode !== 0) return doesNotHold(`exit code ${run.exitCode}${shapes.fail ? `; output shows \`${shapes.fail}\`` : ""}`);
    if (shapes.fail) return doesNotHold(`exit 0 but the output shows a failure: \`${shapes.fail}\``);
    if (shapes.zero) return unverified(`exit 0 but zero tests ran: \`${shapes.zero}\``);
    if (shapes.pass) return holds(`exit 0; output shows \`${shapes.pass}\``);
    return unverified("exit 0 but the output tail shows no test summary");
  }
  return unverified(`no recorded bash run of ${shown(command)} among the last ${options.evidenceWindow} runs`);
}
