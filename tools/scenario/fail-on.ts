import type { RunStatus } from "../../contracts/status/v2.js";
import { KeelError } from "../../kernel/errors.js";

/** `keel run --fail-on`: the outcomes a CI job can gate on. */
export const FAIL_ON_LEVELS = ["partial", "failed"] as const;
export type FailOnLevel = (typeof FAIL_ON_LEVELS)[number];

/** How bad an outcome is: succeeded < partial < failed = cancelled = timed_out. */
const SEVERITY: Record<RunStatus, number> = { succeeded: 0, partial: 1, failed: 2, cancelled: 2, timed_out: 2 };
const THRESHOLD: Record<FailOnLevel, number> = { partial: 1, failed: 2 };

export function parseFailOn(raw: string | undefined): FailOnLevel | undefined {
  if (raw === undefined) return undefined;
  if ((FAIL_ON_LEVELS as readonly string[]).includes(raw)) return raw as FailOnLevel;
  throw new KeelError("KEEL_ERR_CLI_USAGE", `--fail-on must be one of ${FAIL_ON_LEVELS.join(", ")}, got \`${raw}\``);
}

/** Whether `status` is at least as bad as `level`. */
export function failsOn(status: RunStatus, level: FailOnLevel): boolean {
  return SEVERITY[status] >= THRESHOLD[level];
}
