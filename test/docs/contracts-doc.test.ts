import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { contracts } from "../../contracts/registry.js";
import { packageRoot } from "../../kernel/package-root.js";
import { CONTRACTS_DOC, REFERENCE_BEGIN, REFERENCE_END, renderContractReference, renderContractsDoc } from "../../tools/docs/contracts-doc.js";

describe("docs/contracts.md", () => {
  const committed = readFileSync(join(packageRoot(), CONTRACTS_DOC), "utf8");

  it("holds a section per published contract version, with every top-level field and its required mark", () => {
    for (const def of contracts) {
      const start = committed.indexOf(`\n### ${def.name}@${def.version}\n`);
      expect(start, `${def.name}@${def.version}`).toBeGreaterThan(0);
      const next = committed.indexOf("\n### ", start + 1);
      const section = committed.slice(start, next < 0 ? undefined : next);
      const schema = def.schema as { properties?: Record<string, unknown>; required?: string[] };
      for (const field of Object.keys(schema.properties ?? {})) {
        const row = section.split("\n").find((line) => line.startsWith(`| \`${field}\` |`));
        expect(row, `${def.name}@${def.version} ${field}`).toBeDefined();
        expect(row!.endsWith("| yes |")).toBe((schema.required ?? []).includes(field));
      }
    }
  });

  it("lists each registered migration on both of its versions", () => {
    const table = renderContractReference().split("\n");
    expect(table.find((l) => l.startsWith("| [`status@1`]"))).toContain("1 → 2 (and back)");
    expect(table.find((l) => l.startsWith("| [`run-report@2`]"))).toContain("1 → 2 (and back)");
    expect(table.find((l) => l.startsWith("| [`receipt@1`]"))).toContain("| — |");
  });

  it("keeps the hand-written prose and regenerates only the marked section", () => {
    const root = mkdtempSync(join(tmpdir(), "keel-contracts-doc-"));
    try {
      mkdirSync(join(root, "docs"));
      writeFileSync(join(root, CONTRACTS_DOC), `# Mine\n\nprose\n\n${REFERENCE_BEGIN}\nstale\n${REFERENCE_END}\n\nafter\n`);
      const rendered = renderContractsDoc(root);
      expect(rendered.startsWith("# Mine\n\nprose\n\n")).toBe(true);
      expect(rendered).not.toContain("stale");
      expect(rendered).toContain("### status@2");
      expect(rendered.endsWith(`${REFERENCE_END}\n\nafter\n`)).toBe(true);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("refuses a page whose markers are gone, with a code and what to do", () => {
    const root = mkdtempSync(join(tmpdir(), "keel-contracts-doc-"));
    try {
      mkdirSync(join(root, "docs"));
      writeFileSync(join(root, CONTRACTS_DOC), "# no markers\n");
      expect(() => renderContractsDoc(root)).toThrow(expect.objectContaining({ code: "KEEL_ERR_DOCS_TEMPLATE", message: expect.stringContaining("put the lines") }));
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
