/** A criterion longer than this (after trimming) is rejected, not cut (see `normalizeCriteria`). */
export const CRITERION_MAX_CHARS = 500;
export const DEFAULT_MAX_CRITERIA = 20;

export interface NormalizedCriteria {
  /** Trimmed, tag-neutralized criteria, at most `maxCriteria`, duplicates removed, in order. */
  criteria: string[];
  /** One line per dropped or changed criterion, `criterion N: …` (1-based), for the caller to show. */
  problems: string[];
}

/**
 * Complete tags that look like framework markup (`<system-reminder>`, `</tool_result>`,
 * `<system foo="x"/>`): a criterion is shown to a model, so it must not be able to open
 * or close a section of the prompt.
 */
const TAG = /<(\/?[A-Za-z][\w.:-]*(?:\s[^<>]*)?\/?)>/g;

/** Replace the angle brackets of tag-like text with `‹ ›` (same length, no longer markup). */
export function neutralizeTags(text: string): string {
  return text.replace(TAG, "‹$1›");
}

/**
 * Clean the `acceptanceCriteria` a caller gave: strings only, trimmed, non-empty,
 * at most 500 characters each, tag-like markup neutralized, duplicates dropped, at most
 * `maxCriteria` (default 20; the first ones are kept).
 *
 * A criterion over 500 characters is **rejected**, not truncated: a cut path or
 * command would name something else and could then hold for the wrong reason.
 *
 * @example
 * normalizeCriteria(["  file:out.md exists ", 7, "<system-reminder>x</system-reminder>"])
 * // { criteria: ["file:out.md exists", "‹system-reminder›x‹/system-reminder›"],
 * //   problems: ["criterion 2: not a string; dropped", "criterion 3: tag-like markup neutralized"] }
 */
export function normalizeCriteria(raw: unknown, options: { maxCriteria?: number } = {}): NormalizedCriteria {
  const maxCriteria = options.maxCriteria ?? DEFAULT_MAX_CRITERIA;
  const criteria: string[] = [];
  const problems: string[] = [];
  if (!Array.isArray(raw)) return { criteria, problems: ["acceptance criteria must be an array of strings; none kept"] };
  raw.forEach((item, i) => {
    const label = `criterion ${i + 1}`;
    if (typeof item !== "string") return problems.push(`${label}: not a string; dropped`);
    const trimmed = item.trim();
    if (trimmed.length === 0) return problems.push(`${label}: empty; dropped`);
    if (trimmed.length > CRITERION_MAX_CHARS) {
      return problems.push(`${label}: ${trimmed.length} characters, over the limit of ${CRITERION_MAX_CHARS}; dropped (shorten it)`);
    }
    const text = neutralizeTags(trimmed);
    if (text !== trimmed) problems.push(`${label}: tag-like markup neutralized`);
    if (criteria.includes(text)) return problems.push(`${label}: duplicate; dropped`);
    if (criteria.length >= maxCriteria) return problems.push(`${label}: over the limit of ${maxCriteria} criteria; dropped`);
    criteria.push(text);
    return undefined;
  });
  return { criteria, problems };
}

export type FileCheck = "exists" | "non-empty";

/** What a criterion asks, by family (plugins/acceptance/README.md). */
export type ClassifiedCriterion =
  | { family: "file"; path: string; check: FileCheck }
  | { family: "file_written"; path: string }
  | { family: "tests_passed"; command: string }
  | { family: "json_valid"; path: string; contract: string }
  | { family: "undecidable" };

export type CriterionFamily = ClassifiedCriterion["family"];

const FILE = /^file:[ \t]*([^\n]+?)[ \t]+(exists|non-empty)$/i;
const FILE_WRITTEN = /^file_written:[ \t]*([^\n]+)$/i;
const TESTS_PASSED = /^tests_passed:[ \t]*([^\n]+)$/i;
const JSON_VALID = /^json_valid:[ \t]*([^\n]+?)[ \t]+([a-z][a-z0-9-]*@v?\d+)$/i;

/** A path as written, without one pair of surrounding backticks or quotes. */
function unquotePath(text: string): string {
  const t = text.trim();
  const m = /^([`'"])(.+)\1$/.exec(t);
  return m ? m[2]!.trim() : t;
}

/**
 * The family of a criterion. Case-insensitive, and the criterion must be exactly one
 * line of that form; anything else is `undecidable`.
 *
 * @example
 * classifyCriterion("FILE:report.md Non-Empty") // { family: "file", path: "report.md", check: "non-empty" }
 * classifyCriterion("tests_passed:npm test")    // { family: "tests_passed", command: "npm test" }
 * classifyCriterion("the report is good")       // { family: "undecidable" }
 */
export function classifyCriterion(text: string): ClassifiedCriterion {
  const line = text.trim();
  let m = FILE.exec(line);
  if (m) {
    const path = unquotePath(m[1]!);
    if (path) return { family: "file", path, check: m[2]!.toLowerCase() as FileCheck };
  }
  m = JSON_VALID.exec(line);
  if (m) {
    const path = unquotePath(m[1]!);
    if (path) return { family: "json_valid", path, contract: m[2]!.toLowerCase() };
  }
  m = FILE_WRITTEN.exec(line);
  if (m) {
    const path = unquotePath(m[1]!);
    if (path) return { family: "file_written", path };
  }
  m = TESTS_PASSED.exec(line);
  if (m) {
    const command = m[1]!.trim();
    if (command) return { family: "tests_passed", command };
  }
  return { family: "undecidable" };
}
