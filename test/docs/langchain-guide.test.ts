/**
 * docs/langchain.md's code blocks are checked, its side-by-side section ("The same agent with
 * `createAgent` and with Keel") among them: `ts` blocks are type-checked with `tsc` against the built package (imports of `keel` resolve to
 * `dist/` by the package's own name), `mjs` blocks are run with node.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { packageRoot } from "../../kernel/package-root.js";
import { codeBlocks } from "./markdown-blocks.js";
import { typecheckFiles } from "./typecheck-blocks.js";

const ROOT = packageRoot();
const GUIDE = readFileSync(join(ROOT, "docs", "langchain.md"), "utf8");

/** The guide's side-by-side section: from its heading to the next `## `. */
function sideBySideSection(): string {
  const start = GUIDE.indexOf("\n## The same agent with `createAgent` and with Keel");
  if (start < 0) return "";
  const end = GUIDE.indexOf("\n## ", start + 1);
  return GUIDE.slice(start, end < 0 ? undefined : end);
}

const dir = join(ROOT, ".scratch", `langchain-guide-${process.pid}`);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("docs/langchain.md", () => {
  const guide = codeBlocks(GUIDE);
  const sideBySide = codeBlocks(sideBySideSection());

  it("have the blocks this test checks", () => {
    expect(guide.filter((b) => b.lang === "ts").length).toBeGreaterThanOrEqual(2);
    expect(guide.filter((b) => b.lang === "mjs").length).toBeGreaterThanOrEqual(1);
    expect(sideBySide.filter((b) => b.lang === "ts").length).toBeGreaterThanOrEqual(2);
    expect(guide.filter((b) => !["ts", "mjs", "sh", "text"].includes(b.lang))).toEqual([]);
  });

  it("ts blocks type-check against the package (tsc --noEmit, strict)", () => {
    mkdirSync(dir, { recursive: true });
    const files = guide
      .map((b) => ({ ...b, from: "guide" }))
      .filter((b) => b.lang === "ts")
      .map((b) => {
        const file = `${b.from}-${b.line}.ts`;
        writeFileSync(join(dir, file), b.code);
        return file;
      });
    expect(typecheckFiles(dir, files)).toBe("");
  }, 60_000);

  it("mjs blocks run to completion", () => {
    mkdirSync(dir, { recursive: true });
    for (const block of guide.filter((b) => b.lang === "mjs")) {
      const file = join(dir, `guide-${block.line}.mjs`);
      writeFileSync(file, block.code);
      let failure = "";
      try {
        execFileSync(process.execPath, [file], { encoding: "utf8", cwd: dir, stdio: "pipe" });
      } catch (error) {
        failure = `block at line ${block.line}: ${(error as { stderr?: string }).stderr ?? (error as Error).message}`;
      }
      expect(failure).toBe("");
    }
  }, 60_000);
});
