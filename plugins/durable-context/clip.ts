/** One line: whitespace runs (newlines included) become single spaces. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** At most `max` characters; a cut text ends with `…`. */
export function clipEnd(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}…`;
}

const MIDDLE = "\n...\n";

/** At most `max` characters: a longer text keeps its first two thirds and last third around `\n...\n` (as delegation@1 briefs do). */
export function clipMiddle(text: string, max: number): string {
  if (text.length <= max) return text;
  const room = Math.max(0, max - MIDDLE.length);
  const head = Math.ceil((room * 2) / 3);
  const tail = room - head;
  return `${text.slice(0, head)}${MIDDLE}${tail > 0 ? text.slice(text.length - tail) : ""}`;
}
