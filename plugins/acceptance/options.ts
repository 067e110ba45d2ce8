/** The acceptance options (plugins/acceptance/README.md, options), with their defaults. */
export interface AcceptanceOptions {
  /** Criteria kept per task; later ones are dropped with a problem. */
  maxCriteria: number;
  /** `tests_passed:` looks at the newest this-many bash runs only. */
  evidenceWindow: number;
  /** Recorded command text considered (longer records count as truncated). */
  commandChars: number;
  /** Characters of the output tail searched for test summary shapes. */
  outputChars: number;
  /** Files larger than this hold `non-empty`/`file_written` by their size, without being read. */
  probeBytes: number;
}

export const DEFAULT_ACCEPTANCE_OPTIONS: Readonly<AcceptanceOptions> = Object.freeze({
  maxCriteria: 20,
  evidenceWindow: 20,
  commandChars: 500,
  outputChars: 1000,
  probeBytes: 50000,
});

/** Options from a validated config (or a partial one), defaults filled in. */
export function readAcceptanceOptions(config: Readonly<Record<string, unknown>> | Partial<AcceptanceOptions> = {}): AcceptanceOptions {
  const out = { ...DEFAULT_ACCEPTANCE_OPTIONS };
  for (const key of Object.keys(DEFAULT_ACCEPTANCE_OPTIONS) as Array<keyof AcceptanceOptions>) {
    const value = (config as Record<string, unknown>)[key];
    if (typeof value === "number" && Number.isInteger(value) && value >= 1) out[key] = value;
  }
  return out;
}
