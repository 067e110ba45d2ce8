/**
 * docs/langchain.md's code blocks and the README's LangChain section are checked: `ts`
 * blocks are type-checked with `tsc` against the built package (imports of `keel` resolve to
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
const README = readFileSync(join(ROOT, "README.md"), "utf8");

/** The README's section on LangChain: from its heading to the next `## `. */
function readmeSection(): string {
  const start = README.indexOf("\n## LangChain");
  if (start < 0) return "";
  const end = README.indexOf("\n## ", start + 1);
  return README.slice(start, end < 0 ? undefined : end);
}

const dir = join(ROOT, ".scratch", `langchain-guide-${process.pid}`);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("docs/langchain.md and the README's LangChain section", () => {
  const guide = codeBlocks(GUIDE);
  const readme = codeBlocks(readmeSection());

  it("have the blocks this test checks", () => {
    expect(guide.filter((b) => b.lang === "ts").length).toBeGreaterThanOrEqual(2);
    expect(guide.filter((b) => b.lang === "mjs").length).toBeGreaterThanOrEqual(1);
    expect(readme.filter((b) => b.lang === "ts").length).toBeGreaterThanOrEqual(2);
    expect([...guide, ...readme].filter((b) => !["ts", "mjs", "sh", "text"].includes(b.lang))).toEqual([]);
  });

  it("ts blocks type-check against the package (tsc --noEmit, strict)", () => {
    mkdirSync(dir, { recursive: true });
    const files = [...guide.map((b) => ({ ...b, from: "guide" })), ...readme.map((b) => ({ ...b, from: "readme" }))]
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
