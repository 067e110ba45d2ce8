import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { capToolOutput, elisionMarker } from "../../../plugins/sanitize/index.js";

describe("capToolOutput", () => {
  it("returns text within the cap unchanged", () => {
    const text = "x".repeat(50000);
    expect(capToolOutput(text, 50000)).toBe(text);
  });

  it("keeps head and tail around a marker stating how many characters were elided, within the cap", () => {
    const text = "H".repeat(40000) + "M".repeat(30000) + "T".repeat(40000);
    const capped = capToolOutput(text, 50000);
    expect(capped.length).toBeLessThanOrEqual(50000);
    const match = /\n\[\.\.\. (\d+) characters elided: tool output capped at 50000 characters \.\.\.\]\n/.exec(capped)!;
    expect(match).not.toBeNull();
    const head = capped.slice(0, match.index);
    const tail = capped.slice(match.index + match[0].length);
    expect(head).toBe("H".repeat(head.length));
    expect(tail).toBe("T".repeat(tail.length));
    expect(Number(match[1])).toBe(text.length - head.length - tail.length);
    expect(Math.abs(head.length - tail.length)).toBeLessThanOrEqual(1);
    expect(capped.length).toBe(50000);
  });

  it("never splits a surrogate pair", () => {
    const text = "😀".repeat(30000);
    const capped = capToolOutput(text, 1001);
    expect(capped.length).toBeLessThanOrEqual(1001);
    expect(capped).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
  });

  it("property: within the cap, head is a prefix, tail a suffix, and the elided count adds up", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 0, maxLength: 4000 }), fc.integer({ min: 200, max: 3000 }), (text, max) => {
        const capped = capToolOutput(text, max);
        expect(capped.length).toBeLessThanOrEqual(max);
        if (text.length <= max) {
          expect(capped).toBe(text);
          return;
        }
        const match = /\n\[\.\.\. (\d+) characters elided: tool output capped at \d+ characters \.\.\.\]\n/.exec(capped)!;
        const elided = Number(match[1]);
        const head = capped.slice(0, match.index);
        const tail = capped.slice(match.index + match[0].length);
        expect(text.startsWith(head)).toBe(true);
        expect(text.endsWith(tail)).toBe(true);
        expect(head.length + elided + tail.length).toBe(text.length);
        expect(capped).toBe(head + elisionMarker(elided, max) + tail);
      }),
      { numRuns: 300 },
    );
  });
});
