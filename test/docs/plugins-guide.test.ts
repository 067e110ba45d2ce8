/**
 * docs/plugins.md's code blocks are checked: `ts` blocks are written out as modules and
 * type-checked with `tsc` against the built package (imports of `keel` resolve to `dist/`
 * by the package's own name), `mjs` blocks are run with node, `json` blocks are parsed
 * (a stack@1 one validated). A block's info string may name its file (```ts cost-meter.ts)
 * so later blocks can import it. `npm test` builds dist first.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { validate } from "../../contracts/registry.js";
import { packageRoot } from "../../kernel/package-root.js";
import { codeBlocks } from "./markdown-blocks.js";
import { typecheckFiles } from "./typecheck-blocks.js";

const ROOT = packageRoot();
const GUIDE = readFileSync(join(ROOT, "docs", "plugins.md"), "utf8");
const LANGUAGES = new Set(["ts", "mjs", "json", "text"]);

// Inside the package (no package.json of its own), so `import … from "keel"` is a self-reference.
const dir = join(ROOT, ".scratch", `plugins-guide-${process.pid}`);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("docs/plugins.md code blocks", () => {
  const blocks = codeBlocks(GUIDE);

  it("every fenced block has a language that is checked (or is plain text)", () => {
    expect(GUIDE.split("\n").filter((l) => l === "```").length).toBe(blocks.length);
    expect(blocks.filter((b) => !LANGUAGES.has(b.lang)).map((b) => `line ${b.line}: ${b.lang}`)).toEqual([]);
    expect(blocks.filter((b) => b.lang === "ts").length).toBeGreaterThanOrEqual(4);
    expect(blocks.filter((b) => b.lang === "mjs").length).toBeGreaterThanOrEqual(1);
  });

  it("json blocks parse, and a stack@1 block validates", () => {
    for (const block of blocks.filter((b) => b.lang === "json")) {
      const value = JSON.parse(block.code) as { contract?: string };
      if (value.contract === "stack") expect(validate("stack@1", value).valid).toBe(true);
    }
  });

  it("ts blocks type-check against the package (tsc --noEmit, strict)", () => {
    mkdirSync(dir, { recursive: true });
    const files = blocks.filter((b) => b.lang === "ts").map((b) => {
      writeFileSync(join(dir, b.file), b.code);
      return b.file;
    });
    expect(typecheckFiles(dir, files)).toBe("");
  }, 60_000);

  it("each ts block that default-exports a plugin composes into the built-in lead stack", () => {
    mkdirSync(dir, { recursive: true });
    const plugins = blocks.filter((b) => b.lang === "ts" && /^export default definePlugin\(/m.test(b.code));
    expect(plugins.length).toBeGreaterThanOrEqual(4);
    for (const b of plugins) writeFileSync(join(dir, b.file), b.code);
    const script = [
      'import { compose, loadStack } from "keel";',
      `for (const file of ${JSON.stringify(plugins.map((b) => `./${b.file.replace(/\.ts$/, ".js")}`))}) {`,
      "  const plugin = (await import(file)).default;",
      '  const loaded = await loadStack("lead", { plugins: [plugin] });',
      "  const composition = compose(loaded.stack, { plugins: loaded.plugins });",
      "  if (!composition.order.includes(plugin.manifest.name)) throw new Error(`${file}: not composed`);",
      "}",
    ].join("\n");
    writeFileSync(join(dir, "compose-into-lead.ts"), script);
    let failure = "";
    try {
      execFileSync(process.execPath, ["--import", "tsx", join(dir, "compose-into-lead.ts")], { encoding: "utf8", cwd: dir, stdio: "pipe" });
    } catch (error) {
      failure = (error as { stderr?: string }).stderr ?? (error as Error).message;
    }
    expect(failure).toBe("");
  }, 60_000);

  it("mjs blocks run to completion", () => {
    mkdirSync(dir, { recursive: true });
    for (const block of blocks.filter((b) => b.lang === "mjs")) {
      writeFileSync(join(dir, block.file), block.code);
      let failure = "";
      try {
        execFileSync(process.execPath, [join(dir, block.file)], { encoding: "utf8", cwd: dir, stdio: "pipe" });
      } catch (error) {
        failure = `block at line ${block.line}: ${(error as { stderr?: string }).stderr ?? (error as Error).message}`;
      }
      expect(failure).toBe("");
    }
  }, 60_000);
});
