/**
 * Word sets of tool results, kept as bottom-k sketches so a thread's state stays small
 * however long the outputs are: a result's words (≥3 characters, lowercased) are hashed
 * (FNV-1a, 32 bit) and the SKETCH_SIZE smallest hashes kept. A result with at most that
 * many unique words is kept whole and compared exactly; larger ones are compared with the
 * standard bottom-k estimate of the Jaccard index.
 */

export const SKETCH_SIZE = 256;
/** A result needs this many unique words to be compared at all. */
export const MIN_UNIQUE_WORDS = 10;

export interface WordSketch {
  /** Unique words in the result. */
  n: number;
  /** The smallest min(n, SKETCH_SIZE) word hashes, ascending. */
  h: number[];
}

const WORD = /[\p{L}\p{N}_]+/gu;

export function wordsOf(text: string): Set<string> {
  const out = new Set<string>();
  for (const [word] of text.toLowerCase().matchAll(WORD)) if ([...word].length >= 3) out.add(word);
  return out;
}

export function wordHash(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}

/** The sketch of a result's words, or null when it has too few unique words to compare. */
export function wordSketch(text: string): WordSketch | null {
  const words = wordsOf(text);
  if (words.size < MIN_UNIQUE_WORDS) return null;
  const hashes = [...new Set([...words].map(wordHash))].sort((a, b) => a - b);
  return { n: words.size, h: hashes.slice(0, SKETCH_SIZE) };
}

function isWhole(sketch: WordSketch): boolean {
  return sketch.h.length >= sketch.n;
}

/** Jaccard index of the two word sets: exact when both are whole, else the bottom-k estimate. */
export function jaccard(a: WordSketch, b: WordSketch): number {
  const inB = new Set(b.h);
  if (isWhole(a) && isWhole(b)) {
    let both = 0;
    for (const x of a.h) if (inB.has(x)) both++;
    const union = a.h.length + b.h.length - both;
    return union === 0 ? 0 : both / union;
  }
  const inA = new Set(a.h);
  const union = [...new Set([...a.h, ...b.h])].sort((x, y) => x - y).slice(0, SKETCH_SIZE);
  let both = 0;
  for (const x of union) if (inA.has(x) && inB.has(x)) both++;
  return union.length === 0 ? 0 : both / union.length;
}
