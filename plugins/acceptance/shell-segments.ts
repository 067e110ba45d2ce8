/**
 * A small, quote-aware splitter of a shell command line into simple-command segments.
 * It is not a shell parser: it knows exactly what the `tests_passed:` rules need
 * (segment boundaries, leading env assignments, redirections, command substitutions,
 * grouping) and flags everything else it cannot follow, so a check built on it can
 * only err towards "unprovable". Written by hand in the spirit of `shell-quote`'s
 * `parse` (which cannot be added as a dependency here, and does not report `$(…)`).
 */

/** Operators that join two segments (a newline counts as `;`). */
export type ShellOperator = "&&" | "||" | ";" | "|" | "|&" | "&";

export interface ShellSegment {
  /** The segment's source text, trimmed. */
  raw: string;
  /** Command words after quote removal, without leading assignments and redirections. */
  words: string[];
  /** Leading `NAME=value` words, as written. */
  assignments: string[];
  /** Redirections as written without spaces: `>out.txt`, `2>&1`, `<in.txt`. */
  redirections: string[];
  /** The operator joining this segment to the previous one (none for the first). */
  before?: ShellOperator;
}

export interface ShellSplit {
  segments: ShellSegment[];
  /** Every operator in source order, a trailing one (`npm test &`) included. */
  operators: ShellOperator[];
  /** The operator after the last segment (`npm test &` → `&`), if any. */
  trailing?: ShellOperator;
  /** Inner text of every `$(…)`, `` `…` ``, `<(…)`, `>(…)` at this level. */
  substitutions: string[];
  /** `( … )` subshells were seen. */
  grouping: boolean;
  /** A here-document (`<<`) was seen: the lines after it are not commands. */
  heredoc: boolean;
  /** An unbalanced quote or parenthesis: the split is not reliable. */
  problem?: string;
}

interface Word {
  raw: string;
  value: string;
}

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

/**
 * Split a command line into segments at `&&`, `||`, `;`, newlines, `|`, `|&` and `&`,
 * outside quotes and substitutions.
 *
 * @example
 * splitShellCommand("cd app && FOO=1 npm test > out.txt").segments
 * // [{ words: ["cd", "app"], … }, { words: ["npm", "test"], assignments: ["FOO=1"], redirections: [">out.txt"], before: "&&" }]
 */
export function splitShellCommand(source: string): ShellSplit {
  const out: ShellSplit = { segments: [], operators: [], substitutions: [], grouping: false, heredoc: false };
  let words: Word[] = [];
  let assignments: string[] = [];
  let redirections: string[] = [];
  let word: Word | null = null;
  let pendingRedirect: string | null = null;
  let segmentStart = 0;
  let before: ShellOperator | undefined;

  const append = (raw: string, value: string) => {
    word ??= { raw: "", value: "" };
    word.raw += raw;
    word.value += value;
  };
  const endWord = () => {
    if (word === null) return;
    if (pendingRedirect !== null) {
      redirections.push(pendingRedirect + word.raw);
      pendingRedirect = null;
    } else if (words.length === 0 && ASSIGNMENT.test(word.raw)) {
      assignments.push(word.raw);
    } else {
      words.push(word);
    }
    word = null;
  };
  const endSegment = (end: number, operator: ShellOperator | undefined, length: number) => {
    endWord();
    if (pendingRedirect !== null) redirections.push(pendingRedirect);
    pendingRedirect = null;
    if (words.length + assignments.length + redirections.length > 0) {
      out.segments.push({
        raw: source.slice(segmentStart, end).trim(),
        words: words.map((w) => w.value),
        assignments,
        redirections,
        ...(before === undefined ? {} : { before }),
      });
      before = undefined;
    }
    if (operator !== undefined) {
      out.operators.push(operator);
      // `a && ; b` is a syntax error in a shell; keep the strongest operator seen.
      before ??= operator;
    }
    words = [];
    assignments = [];
    redirections = [];
    segmentStart = end + length;
  };

  let i = 0;
  const n = source.length;
  scan: while (i < n) {
    const c = source[i]!;
    const next = source[i + 1];
    if (c === " " || c === "\t") {
      endWord();
      i++;
    } else if (c === "\\") {
      if (next === "\n") i += 2;
      else {
        append(source.slice(i, i + 2), next ?? "");
        i += 2;
      }
    } else if (c === "'") {
      const close = source.indexOf("'", i + 1);
      if (close === -1) {
        out.problem = "unbalanced single quote";
        break scan;
      }
      append(source.slice(i, close + 1), source.slice(i + 1, close));
      i = close + 1;
    } else if (c === '"') {
      const quoted = readDoubleQuoted(source, i, out);
      if (quoted === undefined) break scan;
      append(source.slice(i, quoted.end + 1), quoted.value);
      i = quoted.end + 1;
    } else if (c === "`") {
      const close = readBacktick(source, i);
      if (close === -1) {
        out.problem = "unbalanced backtick";
        break scan;
      }
      out.substitutions.push(source.slice(i + 1, close));
      append(source.slice(i, close + 1), source.slice(i, close + 1));
      i = close + 1;
    } else if ((c === "$" || ((c === "<" || c === ">") && word === null)) && next === "(") {
      const close = readParen(source, i + 1);
      if (close === -1) {
        out.problem = "unbalanced parenthesis";
        break scan;
      }
      out.substitutions.push(source.slice(i + 2, close));
      append(source.slice(i, close + 1), source.slice(i, close + 1));
      i = close + 1;
    } else if (c === "$" && next === "{") {
      const close = source.indexOf("}", i + 2);
      if (close === -1) {
        out.problem = "unbalanced brace";
        break scan;
      }
      append(source.slice(i, close + 1), source.slice(i, close + 1));
      i = close + 1;
    } else if (c === "#" && word === null) {
      const eol = source.indexOf("\n", i);
      i = eol === -1 ? n : eol;
    } else if (c === "\n") {
      endSegment(i, ";", 1);
      i++;
    } else if (c === "&" && next === "&") {
      endSegment(i, "&&", 2);
      i += 2;
    } else if (c === "|" && next === "|") {
      endSegment(i, "||", 2);
      i += 2;
    } else if (c === "|" && next === "&") {
      endSegment(i, "|&", 2);
      i += 2;
    } else if (c === "|") {
      endSegment(i, "|", 1);
      i++;
    } else if (c === ";") {
      const length = next === ";" ? 2 : 1;
      endSegment(i, ";", length);
      i += length;
    } else if (c === "&" && next === ">") {
      endWord();
      const op = source.startsWith("&>>", i) ? "&>>" : "&>";
      pendingRedirect = op;
      i += op.length;
      i = skipBlanks(source, i);
    } else if (c === "&") {
      endSegment(i, "&", 1);
      i++;
    } else if (c === "(" || c === ")") {
      out.grouping = true;
      endSegment(i, undefined, 1);
      i++;
    } else if (c === "<" || c === ">") {
      let fd = "";
      if (word !== null && /^\d+$/.test((word as Word).raw)) {
        fd = (word as Word).raw;
        word = null;
      }
      endWord();
      const op = ["<<<", "<<-", ">>", ">|", ">&", "<<", "<&", "<>"].find((o) => source.startsWith(o, i)) ?? c;
      if (op === "<<" || op === "<<-") out.heredoc = true;
      pendingRedirect = fd + op;
      i += op.length;
      i = skipBlanks(source, i);
    } else {
      append(c, c);
      i++;
    }
  }
  // After an unbalanced quote the rest is one unfinished word; keep what was read so a
  // caller can still see the command (and report the problem).
  endSegment(out.problem ? i : n, undefined, 0);
  if (before !== undefined) out.trailing = before;
  return out;
}

function skipBlanks(source: string, i: number): number {
  while (source[i] === " " || source[i] === "\t") i++;
  return i;
}

/** The value of a `"…"` word starting at `start`, recording substitutions inside it. */
function readDoubleQuoted(source: string, start: number, out: ShellSplit): { value: string; end: number } | undefined {
  let value = "";
  let j = start + 1;
  while (j < source.length) {
    const ch = source[j]!;
    if (ch === "\\" && j + 1 < source.length && '$`"\\\n'.includes(source[j + 1]!)) {
      if (source[j + 1] !== "\n") value += source[j + 1];
      j += 2;
    } else if (ch === '"') {
      return { value, end: j };
    } else if (ch === "$" && source[j + 1] === "(") {
      const close = readParen(source, j + 1);
      if (close === -1) {
        out.problem = "unbalanced parenthesis";
        return undefined;
      }
      out.substitutions.push(source.slice(j + 2, close));
      value += source.slice(j, close + 1);
      j = close + 1;
    } else if (ch === "`") {
      const close = readBacktick(source, j);
      if (close === -1) {
        out.problem = "unbalanced backtick";
        return undefined;
      }
      out.substitutions.push(source.slice(j + 1, close));
      value += source.slice(j, close + 1);
      j = close + 1;
    } else {
      value += ch;
      j++;
    }
  }
  out.problem = "unbalanced double quote";
  return undefined;
}

/** Index of the `)` matching the `(` at `open`, skipping quoted text; -1 when unbalanced. */
function readParen(source: string, open: number): number {
  let depth = 0;
  let quote: "'" | '"' | null = null;
  for (let j = open; j < source.length; j++) {
    const ch = source[j]!;
    if (quote === "'") {
      if (ch === "'") quote = null;
    } else if (ch === "\\") {
      j++;
    } else if (quote === '"') {
      if (ch === '"') quote = null;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
    } else if (ch === "(") {
      depth++;
    } else if (ch === ")") {
      depth--;
      if (depth === 0) return j;
    }
  }
  return -1;
}

/** Index of the backtick closing the one at `open`; -1 when unbalanced. */
function readBacktick(source: string, open: number): number {
  for (let j = open + 1; j < source.length; j++) {
    if (source[j] === "\\") j++;
    else if (source[j] === "`") return j;
  }
  return -1;
}
