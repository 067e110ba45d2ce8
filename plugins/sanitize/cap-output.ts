/** The marker that replaces the middle of an over-long tool output. */
export function elisionMarker(elided: number, max: number): string {
  return `\n[... ${elided} characters elided: tool output capped at ${max} characters ...]\n`;
}

/**
 * Cap `text` at `max` characters (marker included): the head and the tail are kept, the
 * middle is replaced by a marker stating how many characters were elided. Cuts never
 * split a UTF-16 surrogate pair.
 *
 * @example
 * capToolOutput("a".repeat(60000), 50000).length <= 50000; // true
 */
export function capToolOutput(text: string, max: number): string {
  if (text.length <= max) return text;
  // A marker counting text.length is never shorter than the final one; a second pass gives
  // back the digits the real count does not need (the count only shrinks, so it still fits).
  const firstKeep = Math.max(0, max - elisionMarker(text.length, max).length);
  const keep = Math.max(0, max - elisionMarker(text.length - firstKeep, max).length);
  let headEnd = Math.ceil(keep / 2);
  let tailStart = text.length - (keep - headEnd);
  if (headEnd > 0 && isHighSurrogate(text.charCodeAt(headEnd - 1))) headEnd -= 1;
  if (tailStart < text.length && isLowSurrogate(text.charCodeAt(tailStart))) tailStart += 1;
  return text.slice(0, headEnd) + elisionMarker(tailStart - headEnd, max) + text.slice(tailStart);
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
