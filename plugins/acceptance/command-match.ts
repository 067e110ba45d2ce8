import { splitShellCommand, type ShellSegment, type ShellSplit } from "./shell-segments.js";

/**
 * How a recorded bash command relates to a `tests_passed:` criterion command:
 * - `none`: it is not a run of that command (a mention inside `echo` is not a run);
 * - `unprovable`: it runs the command, but its exit status or output tail cannot be
 *   attributed to that command alone (`reasons` say why);
 * - `match`: the criterion command is the final part of the recorded command, and
 *   nothing before it can print or change its environment.
 */
export type CommandMatch = { kind: "none" } | { kind: "unprovable"; reasons: string[] } | { kind: "match" };

/** Commands that may precede the test command: they print nothing and leave the environment alone. */
function isQuietSetup(segment: ShellSegment): boolean {
  if (segment.assignments.length > 0) return false;
  const [name, ...args] = segment.words;
  if (name === "cd") return args.length <= 1 && args[0] !== "-";
  if (name === "true" || name === ":") return args.length === 0;
  // `set -e`, `set -o pipefail`: but not `set` alone (prints every variable) nor -x/-v (trace to the output).
  if (name === "set") return args.length > 0 && args.every((a, i) => /^[-+][a-uwyz]+$/i.test(a) || (i > 0 && /^[-+][a-uwyz]*o$/i.test(args[i - 1]!) && /^[a-z]+$/.test(a) && a !== "xtrace" && a !== "verbose"));
  return false;
}

/** Redirections that keep the command's output in the recorded tail: `2>&1`, input redirections. */
function keepsOutput(redirection: string): boolean {
  return redirection === "2>&1" || /^0?<(?![<>&])/.test(redirection);
}

function sameWords(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((w, i) => w === b[i]);
}

function quote(text: string): string {
  return `\`${text.length > 80 ? `${text.slice(0, 77)}...` : text}\``;
}

/**
 * Why a criterion command cannot be used for matching, or undefined when it can: it must
 * be one or more plain commands joined by `&&` (optionally with env assignments).
 */
export function criterionCommandProblem(command: string): string | undefined {
  const split = splitShellCommand(command);
  if (split.problem) return `the criterion command cannot be split (${split.problem})`;
  if (split.segments.length === 0 || split.segments.some((s) => s.words.length === 0)) return "the criterion names no command";
  const plain =
    split.substitutions.length === 0 &&
    !split.grouping &&
    !split.heredoc &&
    split.operators.every((op) => op === "&&") &&
    split.trailing === undefined &&
    split.segments.every((s) => s.redirections.every(keepsOutput));
  if (!plain) return "the criterion command must be plain commands joined by `&&` (no pipes, `||`, `;`, `&`, redirections or substitutions)";
  return undefined;
}

/** The index of the last place where `criterion`'s segments occur in `recorded`, or -1. */
function findOccurrence(recorded: ShellSplit, criterion: ShellSplit): number {
  const k = criterion.segments.length;
  for (let at = recorded.segments.length - k; at >= 0; at--) {
    const fits = criterion.segments.every((c, j) => {
      const r = recorded.segments[at + j]!;
      if (!sameWords(r.words, c.words)) return false;
      if (!c.assignments.every((a) => r.assignments.includes(a))) return false;
      return j === 0 || r.before === c.before;
    });
    if (fits) return at;
  }
  return -1;
}

/** Whether `text` runs the criterion command anywhere, substitutions included. */
function runsCommand(text: string, criterion: ShellSplit, depth = 0): boolean {
  if (depth > 8) return false;
  const split = splitShellCommand(text);
  return findOccurrence(split, criterion) !== -1 || split.substitutions.some((inner) => runsCommand(inner, criterion, depth + 1));
}

/**
 * Match a recorded command against a criterion command (plugins/acceptance/README.md):
 * `cd dir && make test` matches `make test`; env assignments, output redirection, a
 * preceding segment that may print, `||`/`&` control flow and command substitution make
 * it unprovable; `echo make test` never matches.
 *
 * @example
 * matchRecordedCommand("npm test", "cd app && npm test") // { kind: "match" }
 * matchRecordedCommand("npm test", "npm test || true")   // { kind: "unprovable", reasons: ["`||` control flow: …"] }
 */
export function matchRecordedCommand(criterionCommand: string, recordedCommand: string): CommandMatch {
  const criterion = splitShellCommand(criterionCommand);
  const recorded = splitShellCommand(recordedCommand);
  const at = findOccurrence(recorded, criterion);
  if (at === -1) {
    const inside = recorded.substitutions.some((inner) => runsCommand(inner, criterion));
    if (!inside) return { kind: "none" };
    return { kind: "unprovable", reasons: ["it runs inside a command substitution, whose output and exit status are not recorded"] };
  }
  const reasons = new Set<string>();
  if (recorded.problem) reasons.add(`the recorded command cannot be split reliably (${recorded.problem})`);

  const last = at + criterion.segments.length - 1;
  const after = recorded.segments[last + 1];
  const opAfter = after?.before ?? recorded.trailing;
  if (opAfter === "||") reasons.add("`||` control flow: the command line can succeed when the tests fail");
  if (opAfter === "&") reasons.add("`&` runs it in the background: the exit status is not its own");
  if (after && (opAfter === "|" || opAfter === "|&")) reasons.add(`its output is piped into ${quote(after.raw)}`);
  else if (after && opAfter !== "||" && opAfter !== "&") {
    reasons.add(`it is followed by ${quote(after.raw)}: the exit status and output tail are not its own`);
  }
  if (recorded.operators.includes("||") && opAfter !== "||") reasons.add("`||` control flow: the command line can succeed when the tests fail");
  if (recorded.operators.includes("&") && opAfter !== "&") reasons.add("`&` runs part of the command line in the background");
  if (recorded.substitutions.length > 0) reasons.add("the command line contains a command substitution");
  if (recorded.grouping) reasons.add("the command line uses a `( … )` subshell");
  if (recorded.heredoc) reasons.add("the command line uses a here-document");

  criterion.segments.forEach((c, j) => {
    const r = recorded.segments[at + j]!;
    const extra = r.assignments.filter((a) => !c.assignments.includes(a));
    if (extra.length > 0) reasons.add(`extra env assignment ${extra.map(quote).join(", ")}`);
    const redirected = r.redirections.filter((x) => !keepsOutput(x) && !c.redirections.includes(x));
    if (redirected.length > 0) reasons.add(`output redirection ${redirected.map(quote).join(", ")}: the output tail is not its output`);
  });

  const first = recorded.segments[at]!;
  if (at > 0 && (first.before === "|" || first.before === "|&")) reasons.add(`its input is piped from ${quote(recorded.segments[at - 1]!.raw)}`);
  for (const segment of recorded.segments.slice(0, at)) {
    if (segment.assignments.length > 0 || segment.words[0] === "export" || segment.words[0] === "env") {
      reasons.add(`a preceding segment sets the environment: ${quote(segment.raw)}`);
    } else if (!isQuietSetup(segment)) {
      reasons.add(`a preceding segment may print into the output tail: ${quote(segment.raw)}`);
    }
  }
  return reasons.size === 0 ? { kind: "match" } : { kind: "unprovable", reasons: [...reasons] };
}
