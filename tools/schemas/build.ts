import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { publishedSchema } from "../../contracts/define.js";
import { contracts } from "../../contracts/registry.js";

export const SCHEMAS_DIR = "schemas";
const SCHEMA_FILE = /\.schema\.json$/;

export interface SchemaDrift {
  /** Path relative to the package root, POSIX separators (`schemas/status.v2.schema.json`). */
  path: string;
  problem: "drifted" | "missing" | "extra";
}

/**
 * The text of every schema file, keyed by path relative to `root`. The output depends
 * only on `contracts/`; `root` is taken for symmetry with `writeSchemas`/`checkSchemas`.
 */
export function buildSchemas(_root?: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const def of contracts) {
    files.set(`${SCHEMAS_DIR}/${def.name}.v${def.version}.schema.json`, `${JSON.stringify(publishedSchema(def), null, 2)}\n`);
  }
  return files;
}

function committedSchemaFiles(root: string): string[] {
  const dir = join(root, SCHEMAS_DIR);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => SCHEMA_FILE.test(name))
    .sort()
    .map((name) => `${SCHEMAS_DIR}/${name}`);
}

/** Write `schemas/` and delete stale `*.schema.json` files; returns the paths written. */
export function writeSchemas(root: string): string[] {
  const files = buildSchemas(root);
  mkdirSync(join(root, SCHEMAS_DIR), { recursive: true });
  for (const path of committedSchemaFiles(root)) {
    if (!files.has(path)) rmSync(join(root, path));
  }
  for (const [path, text] of files) writeFileSync(join(root, path), text);
  return [...files.keys()];
}

/** Every committed schema file that differs from the generated one, is missing, or is not generated. */
export function checkSchemas(root: string): SchemaDrift[] {
  const files = buildSchemas(root);
  const drift: SchemaDrift[] = [];
  for (const [path, text] of files) {
    const full = join(root, path);
    if (!existsSync(full)) drift.push({ path, problem: "missing" });
    else if (readFileSync(full, "utf8") !== text) drift.push({ path, problem: "drifted" });
  }
  for (const path of committedSchemaFiles(root)) {
    if (!files.has(path)) drift.push({ path, problem: "extra" });
  }
  return drift;
}
