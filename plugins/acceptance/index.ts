import { definePlugin } from "../../kernel/plugin/define-plugin.js";
import type { AcceptancePort } from "../../kernel/ports/agents.js";
import { normalizeCriteria } from "./criteria.js";
import { acceptanceManifest } from "./manifest.js";
import { readAcceptanceOptions } from "./options.js";
import { renderChecklist, renderLedgerSummary } from "./render.js";
import { evaluateRunAcceptance } from "./run-evidence.js";

/**
 * Deterministic acceptance checks. The plugin has no hooks: its functions turn a run's
 * evidence (workspace files, the `bashRuns` channel, tool results) into an
 * acceptance-verdict@1, for the subagents plugin to run on a finished child. Being in a
 * stack declares the dependency on the `workspace` port and carries the options.
 *
 * @example
 * { "plugins": ["workspace", "acceptance"], "config": { "acceptance": { "evidenceWindow": 10 } } }
 */
export const acceptancePlugin = definePlugin({
  manifest: acceptanceManifest,
  hooks: {},
  services: {
    /** The `acceptance` port (AcceptancePort), with this plugin's options. */
    acceptance: (config): AcceptancePort => ({
      normalize: (raw) => normalizeCriteria(raw, { maxCriteria: readAcceptanceOptions(config).maxCriteria }),
      evaluate: async (criteria, values, ctx) => (await evaluateRunAcceptance(criteria, values, { threadId: ctx.threadId, port: ctx.port, config })).verdict,
      renderChecklist: (verdict) => renderChecklist(verdict),
      renderLedgerSummary: (verdict) => renderLedgerSummary(verdict),
    }),
  },
});

export default acceptancePlugin;

export { acceptanceConfigSchema, acceptanceManifest } from "./manifest.js";
export { DEFAULT_ACCEPTANCE_OPTIONS, readAcceptanceOptions, type AcceptanceOptions } from "./options.js";
export {
  CRITERION_MAX_CHARS,
  classifyCriterion,
  neutralizeTags,
  normalizeCriteria,
  type ClassifiedCriterion,
  type CriterionFamily,
  type FileCheck,
  type NormalizedCriteria,
} from "./criteria.js";
export { evaluateAcceptance, type AcceptanceLeaf, type AcceptanceVerdictV1 } from "./evaluate.js";
export { isBashRun, type AcceptanceEvidence, type BashRunEvidence, type ContractValidator, type LeafOutcome, type WorkspaceResolver } from "./evidence.js";
export { checkFile, checkFileWritten, checkJsonValid } from "./file-checks.js";
export { checkTestsPassed } from "./tests-passed.js";
export { criterionCommandProblem, matchRecordedCommand, type CommandMatch } from "./command-match.js";
export { splitShellCommand, type ShellOperator, type ShellSegment, type ShellSplit } from "./shell-segments.js";
export { FAIL_SHAPES, PASS_SHAPES, ZERO_SHAPES, outputShapes, type OutputShapes } from "./test-shapes.js";
export { ACCEPTANCE_CHECKLIST_HEADER, leafLabel, renderChecklist, renderLedgerSummary, type LeafLabel } from "./render.js";
export { WRITING_TOOLS, evaluateRunAcceptance, filesWrittenFromMessages, type RunAcceptanceContext, type RunAcceptanceState } from "./run-evidence.js";
