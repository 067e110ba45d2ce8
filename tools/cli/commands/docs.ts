import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { renderCliDoc } from "../../docs/cli-doc.js";
import { renderErrorsTable } from "../../docs/errors-table.js";
import { CONTRACTS_DOC, renderContractsDoc } from "../../docs/contracts-doc.js";
import { renderStacksDoc } from "../../docs/stacks-doc.js";
import { runBuildCommand } from "../build-command.js";
import type { CommandIO } from "../io.js";
import { DOCS_BUILD_SPEC } from "../specs.js";

export interface GeneratedDoc {
  /** Path relative to the package root, POSIX separators. */
  path: string;
  /** The document's text; `root` is the package root it is written to (a template may live there). */
  render(root: string): string;
}

/** Every document generated from code; add an entry to generate another one. */
export const GENERATED_DOCS: readonly GeneratedDoc[] = [
  { path: "docs/errors.md", render: () => renderErrorsTable() },
  { path: "docs/stacks.md", render: () => renderStacksDoc() },
  { path: "docs/cli.md", render: () => renderCliDoc() },
  { path: CONTRACTS_DOC, render: (root) => renderContractsDoc(root) },
];

export interface DocDrift {
  path: string;
  problem: "drifted" | "missing";
}

export function writeDocs(root: string, docs: readonly GeneratedDoc[] = GENERATED_DOCS): string[] {
  for (const doc of docs) {
    const full = join(root, doc.path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, doc.render(root));
  }
  return docs.map((d) => d.path);
}

export function checkDocs(root: string, docs: readonly GeneratedDoc[] = GENERATED_DOCS): DocDrift[] {
  const drift: DocDrift[] = [];
  for (const doc of docs) {
    const full = join(root, doc.path);
    if (!existsSync(full)) drift.push({ path: doc.path, problem: "missing" });
    else if (readFileSync(full, "utf8") !== doc.render(root)) drift.push({ path: doc.path, problem: "drifted" });
  }
  return drift;
}

/** `keel docs build [--check] [--json]`: write the generated documents, or report drift. */
export async function docsCommand(args: string[], io: CommandIO): Promise<number> {
  return runBuildCommand(args, io, {
    spec: DOCS_BUILD_SPEC,
    write: (root) => writeDocs(root),
    wrote: (files) => `wrote ${files.join(", ")}`,
    check: checkDocs,
    upToDate: "generated docs are up to date",
    driftHeadline: "KEEL_ERR_DOCS_DRIFT: generated docs differ from the code",
    rebuild: "npx keel docs build",
  });
}
