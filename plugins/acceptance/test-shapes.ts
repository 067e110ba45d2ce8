/**
 * Shapes of a test runner's summary in an output tail (plugins/acceptance/README.md), all
 * case-insensitive and multiline. A tail can show several: the caller decides
 * (`fail` beats `zero` beats `pass`).
 */
export const PASS_SHAPES: readonly RegExp[] = [/\b[1-9]\d*\s+passed\b/im, /^OK$/im, /test result: ok/im, /\ball tests passed\b/im];
export const ZERO_SHAPES: readonly RegExp[] = [/\b0\s+passed\b/im, /\bRan 0 tests\b/im, /no test files/im, /no tests to run/im];
export const FAIL_SHAPES: readonly RegExp[] = [/\b[1-9]\d*\s+failed\b/im, /\b[1-9]\d*\s+errors?\b/im, /^FAILED\b/im, /test result: FAILED/im, /^FAIL\s/im];

export interface OutputShapes {
  /** The first text matching a pass shape, if any. */
  pass?: string;
  zero?: string;
  fail?: string;
}

function firstMatch(shapes: readonly RegExp[], text: string): string | undefined {
  for (const shape of shapes) {
    const match = shape.exec(text);
    if (match) return match[0].replace(/\s+/g, " ").trim();
  }
  return undefined;
}

/**
 * Which summary shapes an output tail shows, with the matched text of each.
 *
 * @example
 * outputShapes("Tests  5 passed (5)\n") // { pass: "5 passed" }
 */
export function outputShapes(tail: string): OutputShapes {
  const found: OutputShapes = {};
  const pass = firstMatch(PASS_SHAPES, tail);
  const zero = firstMatch(ZERO_SHAPES, tail);
  const fail = firstMatch(FAIL_SHAPES, tail);
  if (pass !== undefined) found.pass = pass;
  if (zero !== undefined) found.zero = zero;
  if (fail !== undefined) found.fail = fail;
  return found;
}
