import { isAuthOrConfigError } from "./auth-errors.js";
import { jaccard, wordSketch, type WordSketch } from "./word-sets.js";

export type ToolStatus = "active" | "warned" | "blocked";

/** One tool's progress in a thread. */
export interface ToolProgressEntry {
  status: ToolStatus;
  /** Consecutive problem results (errors or repeats). */
  problems: number;
  /** Word sketches of the tool's last RECENT_RESULTS results, oldest first (null: too few words to compare). */
  recent: Array<WordSketch | null>;
  /** Why the tool is blocked (shown in every refused call). */
  reason?: string;
  /** The run that blocked it: a block lasts for that run only. */
  blockedRunId?: string;
}

/** The `toolProgress` channel value. */
export interface ToolProgressValue {
  tools: Record<string, ToolProgressEntry>;
  /**
   * Hints given in the current run (at most MAX_HINTS_PER_RUN), and those waiting for the
   * next model request (`pending`: wrapModelCall sends them as one hidden user message).
   */
  hints: { runId: string; count: number; pending?: string[] };
}

export interface ProgressOptions {
  warnAfter: number;
  blockAfter: number;
  similarity: number;
}

export const DEFAULT_PROGRESS_OPTIONS: ProgressOptions = { warnAfter: 3, blockAfter: 5, similarity: 0.8 };
export const RECENT_RESULTS = 3;
export const MAX_HINTS_PER_RUN = 3;
const EXCERPT_CHARS = 160;

export type ProblemCause = "error" | "repeat" | "auth";

export interface Observation {
  entry: ToolProgressEntry;
  /** null for a good result. */
  cause: ProblemCause | null;
  /** `warn`: the tool just reached or stays in the warned band; `block`: this result blocked it. */
  action: "none" | "warn" | "block";
}

export function readProgressOptions(config: Readonly<Record<string, unknown>>): ProgressOptions {
  const pick = (key: keyof ProgressOptions) => (typeof config[key] === "number" ? (config[key] as number) : DEFAULT_PROGRESS_OPTIONS[key]);
  return { warnAfter: pick("warnAfter"), blockAfter: pick("blockAfter"), similarity: pick("similarity") };
}

const FRESH: ToolProgressEntry = { status: "active", problems: 0, recent: [] };

/** The entry as it holds in `runId`: a block set by an earlier run of the thread has lapsed. */
export function effectiveEntry(entry: ToolProgressEntry | undefined, runId: string): ToolProgressEntry {
  if (!entry) return FRESH;
  if (entry.status === "blocked" && entry.blockedRunId !== runId) return { status: "active", problems: 0, recent: entry.recent };
  return entry;
}

export function isBlocked(entry: ToolProgressEntry | undefined, runId: string): boolean {
  return effectiveEntry(entry, runId).status === "blocked";
}

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > EXCERPT_CHARS ? `${flat.slice(0, EXCERPT_CHARS)}…` : flat;
}

/** Fold one result of `tool` into its entry (plugins/tool-progress/README.md). */
export function observeResult(
  tool: string,
  previous: ToolProgressEntry | undefined,
  result: { text: string; isError: boolean },
  options: ProgressOptions,
  runId: string,
): Observation {
  const entry = effectiveEntry(previous, runId);
  const sketch = wordSketch(result.text);
  let cause: ProblemCause | null = null;
  if (result.isError) cause = isAuthOrConfigError(result.text) ? "auth" : "error";
  else if (sketch && entry.recent.some((r) => r !== null && jaccard(sketch, r) >= options.similarity)) cause = "repeat";
  const recent = [...entry.recent, sketch].slice(-RECENT_RESULTS);

  if (cause === null) return { entry: { status: "active", problems: 0, recent }, cause, action: "none" };
  const problems = entry.problems + 1;
  if (cause === "auth" || problems >= options.blockAfter) {
    const reason =
      cause === "auth"
        ? `\`${tool}\` failed with an authentication or configuration error (${excerpt(result.text)}); retrying cannot fix missing credentials, rights or configuration, so it is blocked for the rest of this run`
        : `\`${tool}\` has failed or repeated itself ${problems} times in a row (last: ${cause === "repeat" ? "the same result as before" : excerpt(result.text)}); it is blocked for the rest of this run — change strategy or report what is missing`;
    return { entry: { status: "blocked", problems, recent, reason, blockedRunId: runId }, cause, action: "block" };
  }
  if (problems >= options.warnAfter) return { entry: { status: "warned", problems, recent }, cause, action: "warn" };
  return { entry: { status: "active", problems, recent }, cause, action: "none" };
}

/** The hint appended to a result while the tool is in the warned band. */
export function progressHint(tool: string, problems: number, options: ProgressOptions): string {
  const left = options.blockAfter - problems;
  return (
    `[TOOL_PROGRESS] \`${tool}\` has failed or repeated itself ${problems} times in a row; change strategy ` +
    `(different arguments, another tool, or report what is missing) instead of calling it the same way again. ` +
    `After ${left} more such result${left === 1 ? "" : "s"} it will be blocked for the rest of this run.`
  );
}
