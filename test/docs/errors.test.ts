import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { ERRORS } from "../../kernel/errors.js";
import { packageRoot } from "../../kernel/package-root.js";
import { checkDocs, GENERATED_DOCS, writeDocs } from "../../tools/cli/commands/docs.js";
import { renderErrorsTable } from "../../tools/docs/errors-table.js";

const root = packageRoot();
const codes = Object.keys(ERRORS);

function sourceFiles(dir: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return [];
  }
  return entries.flatMap((name) => {
    if (name === "node_modules" || name.startsWith(".")) return [];
    const full = join(dir, name);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return /\.(ts|mts|js|mjs)$/.test(name) && !name.endsWith(".d.ts") ? [full] : [];
  });
}

describe("error codes", () => {
  it.each(codes)("%s is well formed and documented in the table", (code) => {
    expect(code).toMatch(/^KEEL_ERR_[A-Z]+(_[A-Z]+)+$/);
    const spec = ERRORS[code as keyof typeof ERRORS];
    expect(spec.description.trim()).not.toBe("");
    expect(spec.solve.trim()).not.toBe("");
  });

  it("every code used in the sources is defined in ERRORS", () => {
    const undefinedCodes: string[] = [];
    for (const dir of ["kernel", "plugins", "contracts", "tools"]) {
      for (const file of sourceFiles(join(root, dir))) {
        for (const [literal] of readFileSync(file, "utf8").matchAll(/KEEL_ERR_[A-Z_]+/g)) {
          if (literal.startsWith("KEEL_ERR_HTTP_") || literal in ERRORS) continue;
          undefinedCodes.push(`${relative(root, file)}: ${literal}`);
        }
      }
    }
    expect(undefinedCodes).toEqual([]);
  });
});

describe("docs/errors.md", () => {
  it("equals what `keel docs build` generates", () => {
    expect(readFileSync(join(root, "docs", "errors.md"), "utf8")).toBe(renderErrorsTable());
    expect(checkDocs(root)).toEqual([]);
  });

  it("has one row per code, in table order, with its description and fix", () => {
    const rows = renderErrorsTable()
      .split("\n")
      .filter((line) => line.startsWith("| `KEEL_ERR_"));
    expect(rows.map((row) => /^\| `([A-Z_]+)` \|/.exec(row)?.[1])).toEqual(codes);
    const first = ERRORS[codes[0] as keyof typeof ERRORS];
    expect(rows[0]).toContain(first.solve.replace(/\|/g, "\\|"));
  });

  it("escapes pipes so a cell cannot break the table", () => {
    const pipes = renderErrorsTable()
      .split("\n")
      .filter((line) => line.startsWith("| `KEEL_ERR_"))
      .map((row) => row.replace(/\\\|/g, "").split("|").length);
    expect(new Set(pipes)).toEqual(new Set([5]));
  });

  it("reports a drifted or missing generated doc", () => {
    const dir = mkdtempSync(join(tmpdir(), "keel-docs-"));
    try {
      expect(checkDocs(dir)).toEqual(GENERATED_DOCS.map((d) => ({ path: d.path, problem: "missing" })));
      writeDocs(dir);
      expect(checkDocs(dir)).toEqual([]);
      mkdirSync(join(dir, "docs"), { recursive: true });
      writeFileSync(join(dir, "docs", "errors.md"), "# Error codes\n");
      expect(checkDocs(dir)).toEqual([{ path: "docs/errors.md", problem: "drifted" }]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
