import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MIN_UNIQUE_WORDS, SKETCH_SIZE, jaccard, wordSketch, wordsOf } from "../../../plugins/tool-progress/index.js";

const words = (prefix: string, from: number, to: number) => Array.from({ length: to - from }, (_, i) => `${prefix}${from + i}`).join(" ");

describe("wordsOf", () => {
  it("keeps lowercased words of at least 3 characters, once each", () => {
    expect([...wordsOf("The cat, THE dog; an ox at 42 — über-Straße foo_bar 1234")].sort()).toEqual(["1234", "cat", "dog", "foo_bar", "straße", "the", "über"]);
  });
});

describe("wordSketch", () => {
  it("is null below 10 unique words", () => {
    expect(wordSketch("one two three four five six seven eight nine nine nine")).toBeNull();
    expect(MIN_UNIQUE_WORDS).toBe(10);
    expect(wordSketch("one two three four five six seven eight nine tenth")?.n).toBe(10);
  });

  it("keeps at most SKETCH_SIZE hashes, ascending", () => {
    const sketch = wordSketch(words("word", 0, 1000))!;
    expect(sketch.n).toBe(1000);
    expect(sketch.h).toHaveLength(SKETCH_SIZE);
    expect([...sketch.h].sort((a, b) => a - b)).toEqual(sketch.h);
  });
});

describe("jaccard", () => {
  it("is exact for small sets", () => {
    const a = wordSketch(words("word", 0, 10))!;
    const b = wordSketch(words("word", 0, 12))!;
    const c = wordSketch(words("word", 5, 15))!;
    expect(jaccard(a, a)).toBe(1);
    expect(jaccard(a, b)).toBeCloseTo(10 / 12, 10);
    expect(jaccard(a, c)).toBeCloseTo(5 / 15, 10);
    expect(jaccard(a, wordSketch(words("other", 0, 10))!)).toBe(0);
  });

  it("ignores order, case, punctuation and repeats", () => {
    const a = wordSketch("Alpha beta gamma delta epsilon zeta theta iota kappa lambda")!;
    const b = wordSketch("lambda, KAPPA; iota theta zeta epsilon delta gamma beta alpha alpha!")!;
    expect(jaccard(a, b)).toBe(1);
  });

  it("estimates large sets within 0.05 of the exact index", () => {
    for (const [overlapFrom, exact] of [
      [0, 1],
      [200, 1800 / 2200],
      [1000, 1000 / 3000],
      [2000, 0],
    ] as const) {
      const a = wordSketch(words("word", 0, 2000))!;
      const b = wordSketch(words("word", overlapFrom, overlapFrom + 2000))!;
      expect(Math.abs(jaccard(a, b) - exact)).toBeLessThan(0.05);
    }
  });

  it("is symmetric and within [0, 1]", () => {
    const text = fc.array(fc.constantFrom(...Array.from({ length: 40 }, (_, i) => `word${i}`)), { minLength: 10, maxLength: 60 }).map((w) => w.join(" "));
    fc.assert(
      fc.property(text, text, (x, y) => {
        const a = wordSketch(x);
        const b = wordSketch(y);
        if (!a || !b) return true;
        const j = jaccard(a, b);
        return j >= 0 && j <= 1 && Math.abs(j - jaccard(b, a)) < 1e-12;
      }),
    );
  });
});
