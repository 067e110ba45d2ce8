/**
 * Every code block in docs/ and the README is checked, so the docs cannot drift from the code:
 * `ts` blocks are type-checked against the built package (strict; a block names the values it
 * assumes on a `// given: a, b` line, and imports of the reader's own files — relative paths —
 * stand for values of any type); every `keel …` command in a `sh` block must name a command
 * and flags the CLI has (parsed with the CLI's own flag table); `json` blocks parse.
 * docs/plugins.md and docs/langchain.md have their own,
 * stricter tests that also run their blocks.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { packageRoot } from "../../kernel/package-root.js";
import { parseOptionsOf } from "../../tools/cli/command-spec.js";
import { COMMAND_SPECS } from "../../tools/cli/specs.js";
import { codeBlocks, unlabelledFences, type Block } from "./markdown-blocks.js";
import { typecheckFiles } from "./typecheck-blocks.js";

const ROOT = packageRoot();
const CHECKED_ELSEWHERE = new Set(["docs/plugins.md", "docs/langchain.md"]);
const LANGUAGES = new Set(["ts", "js", "mjs", "sh", "json", "text", "yaml", "mermaid"]);

function documents(): Array<{ path: string; text: string }> {
  const docs = readdirSync(join(ROOT, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`);
  return ["README.md", ...docs].map((path) => ({ path, text: readFileSync(join(ROOT, path), "utf8") }));
}

/** A `ts` block as a module: `// given:` names and relative imports become `any` values. */
export function typecheckableSource(code: string): string {
  const declared: string[] = [];
  const body = code
    .split("\n")
    .map((line) => {
      const given = /^\s*\/\/\s*given:\s*(.+)$/.exec(line);
      if (given) {
        declared.push(...given[1]!.split(",").map((n) => n.trim()).filter(Boolean));
        return line;
      }
      const relative = /^\s*import\s+(.+?)\s+from\s+["']\.{1,2}\/[^"']+["'];?\s*$/.exec(line);
      if (!relative) return line;
      const names = relative[1]!.replace(/[{}]/g, " ").split(/[\s,]+/).filter((n) => n && n !== "type" && n !== "as");
      declared.push(...names);
      return `// ${line}`;
    })
    .join("\n");
  const declarations = [...new Set(declared)].map((name) => `declare const ${name}: any;`).join("\n");
  return `${declarations}\n${body}\nexport {};\n`;
}

/** The `keel` invocations in a shell block: one argv (after `keel`) per command. */
export function keelCommands(code: string): string[][] {
  const joined = code.replace(/\\\n/g, " ");
  const commands: string[][] = [];
  for (const line of joined.split("\n")) {
    if (/^\s*#/.test(line)) continue;
    for (const segment of line.split(/&&|\|\||;|\|/)) {
      const words = shellWords(segment);
      while (words.length > 0 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0]!)) words.shift();
      if (words[0] === "npx") {
        words.shift();
        while (words[0]?.startsWith("-")) words.shift();
      }
      if (words[0] === "keel") commands.push(words.slice(1));
    }
  }
  return commands;
}

function shellWords(text: string): string[] {
  return [...text.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]!);
}

/** Why `argv` is not a command the CLI takes, or "" when it is. */
export function cliProblem(argv: readonly string[]): string {
  if (argv.length === 0 || argv[0] === "--help" || argv[0] === "-h" || argv[0] === "--version") return "";
  const spec = [...COMMAND_SPECS].sort((a, b) => b.name.length - a.name.length).find((s) => argv.join(" ").startsWith(`${s.name} `) || argv.join(" ") === s.name);
  if (!spec) return `unknown command \`keel ${argv.join(" ")}\``;
  try {
    parseArgs({ args: argv.slice(spec.name.split(" ").length), options: parseOptionsOf(spec), allowPositionals: true, strict: true });
    return "";
  } catch (error) {
    return `\`keel ${argv.join(" ")}\`: ${(error as Error).message}`;
  }
}

const dir = join(ROOT, ".scratch", `docs-blocks-${process.pid}`);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("code blocks in docs/ and the README", () => {
  const docs = documents();
  const blocks: Array<Block & { path: string }> = docs.flatMap(({ path, text }) => codeBlocks(text).map((b) => ({ ...b, path })));

  it("every block has a language this test knows", () => {
    expect(docs.flatMap(({ path, text }) => unlabelledFences(text).map((line) => `${path}:${line}`))).toEqual([]);
    expect(blocks.filter((b) => !LANGUAGES.has(b.lang)).map((b) => `${b.path}:${b.line} ${b.lang}`)).toEqual([]);
  });

  it("ts blocks type-check against the package", () => {
    mkdirSync(dir, { recursive: true });
    const files = blocks
      .filter((b) => b.lang === "ts" && !CHECKED_ELSEWHERE.has(b.path))
      .map((b) => {
        const file = `${b.path.replace(/[/.]/g, "_")}-${b.line}.ts`;
        writeFileSync(join(dir, file), typecheckableSource(b.code));
        return file;
      });
    expect(files.length).toBeGreaterThanOrEqual(6);
    expect(typecheckFiles(dir, files)).toBe("");
  }, 90_000);

  it("every `keel` command in a shell block is one the CLI takes, with flags it has", () => {
    const shell = blocks.filter((b) => b.lang === "sh");
    const commands = shell.flatMap((b) => keelCommands(b.code).map((argv) => ({ argv, at: `${b.path}:${b.line}` })));
    expect(commands.length).toBeGreaterThanOrEqual(5);
    expect(commands.map(({ argv, at }) => [at, cliProblem(argv)]).filter(([, problem]) => problem !== "")).toEqual([]);
  });

  it("json blocks parse", () => {
    const broken = blocks.filter((b) => b.lang === "json").filter((b) => {
      try {
        JSON.parse(b.code);
        return false;
      } catch {
        return true;
      }
    });
    expect(broken.map((b) => `${b.path}:${b.line}`)).toEqual([]);
  });
});

describe("the checks bite", () => {
  it("a misspelled flag, an unknown command and a flag of another command are caught", () => {
    expect(cliProblem(["serve", "--port", "8787"])).toBe("");
    expect(cliProblem(["serve", "--prot", "8787"])).toMatch(/--prot/);
    expect(cliProblem(["deploy"])).toMatch(/unknown command/);
    expect(cliProblem(["contracts", "check", "--base", "main", "--mode", "full"])).toBe("");
    expect(cliProblem(["contracts", "check", "--stack", "lead"])).toMatch(/--stack/);
  });

  it("finds commands behind env assignments, npx, continuations and &&", () => {
    expect(keelCommands('KEEL_API_KEYS=a:b \\\nnpx keel serve --host 0.0.0.0 \\\n  --db "postgres://x"\nnpm install && npx --no-install keel docs build --check\n# keel not-a-command\n')).toEqual([
      ["serve", "--host", "0.0.0.0", "--db", "postgres://x"],
      ["docs", "build", "--check"],
    ]);
  });

  it("a ts block that uses an API the package lacks fails to type-check", () => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "bad.ts"), typecheckableSource('import { composeEverything } from "keel";\n// given: stack\ncomposeEverything(stack);\n'));
    writeFileSync(join(dir, "good.ts"), typecheckableSource('import { compose } from "keel";\nimport mine from "../src/plugin.js";\n// given: stack\ncompose(stack, { plugins: [mine] });\n'));
    expect(typecheckFiles(dir, ["good.ts"])).toBe("");
    expect(typecheckFiles(dir, ["bad.ts"])).toMatch(/composeEverything/);
  }, 90_000);
});
