/** Fenced code blocks of a Markdown document, for the tests that check them. */
export interface Block {
  /** The info string's first word (`ts`, `sh`, …). */
  lang: string;
  /** The info string's second word, or `block-LINE.LANG`. */
  file: string;
  code: string;
  /** 1-based line of the opening fence. */
  line: number;
}

export function codeBlocks(markdown: string): Block[] {
  const blocks: Block[] = [];
  const lines = markdown.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const open = /^\s*```(\S+)(?:\s+(\S+))?\s*$/.exec(lines[i]!);
    if (open === null) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !/^\s*```\s*$/.test(lines[i]!); i++) body.push(lines[i]!);
    const lang = open[1]!;
    blocks.push({ lang, file: open[2] ?? `block-${start + 1}.${lang}`, code: body.join("\n") + "\n", line: start + 1 });
  }
  return blocks;
}

/** Opening fences without a language (`` ``` `` alone where a block starts). */
export function unlabelledFences(markdown: string): number[] {
  const found: number[] = [];
  let inside = false;
  markdown.split("\n").forEach((line, index) => {
    if (!/^\s*```/.test(line)) return;
    if (!inside && /^\s*```\s*$/.test(line)) found.push(index + 1);
    inside = !inside;
  });
  return found;
}
