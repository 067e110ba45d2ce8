import type { Manifest } from "../../kernel/plugin/types.js";
import { DEFAULT_ACCEPTANCE_OPTIONS as D } from "./options.js";

/** JSON Schema of the acceptance options (defaults applied when the stack is built). */
export const acceptanceConfigSchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    maxCriteria: { type: "integer", minimum: 1, default: D.maxCriteria, description: "Acceptance criteria kept per task (the first ones)." },
    evidenceWindow: { type: "integer", minimum: 1, default: D.evidenceWindow, description: "`tests_passed:` considers only the newest this-many bash runs." },
    commandChars: { type: "integer", minimum: 1, default: D.commandChars, description: "Recorded command text considered; a longer record counts as truncated." },
    outputChars: { type: "integer", minimum: 1, default: D.outputChars, description: "Characters of a run's output tail searched for test summary shapes." },
    probeBytes: { type: "integer", minimum: 1, default: D.probeBytes, description: "Files over this size hold `non-empty` by a size probe, without being read." },
  },
} as const;

export const acceptanceManifest: Manifest = {
  name: "acceptance",
  version: "0.1.0",
  kind: "middleware",
  kernel: ">=0.1.0 <1",
  description:
    "Deterministic acceptance checks over execution evidence (workspace files, recorded bash runs): acceptance-verdict@1 for a task's acceptance criteria. Functions, no hooks; the subagents plugin runs them on finished children.",
  requires: ["workspace"],
  // The checks, for the subagents plugin to run on finished children (kernel/ports/agents.ts).
  provides: ["acceptance"],
  contracts: { produces: ["acceptance-verdict@1"] },
  hooks: {},
  config: acceptanceConfigSchema as unknown as Record<string, unknown>,
};
