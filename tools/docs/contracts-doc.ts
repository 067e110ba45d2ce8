import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { MIGRATIONS } from "../../contracts/migrations.js";
import { contracts } from "../../contracts/registry.js";
import { publishedSchema } from "../../contracts/define.js";
import { KeelError } from "../../kernel/errors.js";
import { packageRoot } from "../../kernel/package-root.js";

export const CONTRACTS_DOC = "docs/contracts.md";
export const REFERENCE_BEGIN = "<!-- BEGIN GENERATED: contract reference (keel docs build; do not edit by hand) -->";
export const REFERENCE_END = "<!-- END GENERATED: contract reference -->";

/** How deep the fields table walks into nested objects (`stopReasons[].limit.type` is depth 3). */
const MAX_DEPTH = 3;

type Schema = Record<string, unknown>;

/**
 * `docs/contracts.md` is written by hand except its reference section, which is rendered
 * from `contracts/` (every published version, its fields, its migrations): this returns the
 * file with that section replaced, so `keel docs build --check` catches a contract changed
 * without its documentation. A root without the page yet (a fresh output directory) gets the
 * package's own prose.
 */
export function renderContractsDoc(root: string = packageRoot()): string {
  const target = join(root, CONTRACTS_DOC);
  const current = readFileSync(existsSync(target) ? target : join(packageRoot(), CONTRACTS_DOC), "utf8");
  const begin = current.indexOf(REFERENCE_BEGIN);
  const end = current.indexOf(REFERENCE_END);
  if (begin < 0 || end < begin) {
    throw new KeelError("KEEL_ERR_DOCS_TEMPLATE", `${CONTRACTS_DOC} has lost its generated-section markers: put the lines ${REFERENCE_BEGIN} and ${REFERENCE_END} back where the contract reference goes`);
  }
  return `${current.slice(0, begin)}${REFERENCE_BEGIN}\n${renderContractReference()}${current.slice(end)}`;
}

export function renderContractReference(): string {
  const lines: string[] = ["", "| contract | title | schema file | migrations |", "|---|---|---|---|"];
  for (const def of contracts) {
    const steps = MIGRATIONS.filter((m) => m.contract === def.name && (m.from === def.version || m.to === def.version))
      .map((m) => `${m.from} → ${m.to}${m.project ? " (and back)" : ""}`)
      .join(", ");
    lines.push(`| [\`${def.name}@${def.version}\`](#${anchor(def.name, def.version)}) | ${cell(def.title)} | \`schemas/${def.name}.v${def.version}.schema.json\` | ${steps || "—"} |`);
  }
  for (const def of contracts) {
    const schema = publishedSchema(def);
    lines.push("", `### ${def.name}@${def.version}`, "", `${def.title}. \`$id\`: \`${String(schema.$id)}\`.`, "");
    const rows = fieldRows(schema, "", 1);
    if (rows.length === 0) lines.push(`Shape: ${cell(typeOf(schema))}.`);
    else lines.push("| field | type | required |", "|---|---|---|", ...rows);
  }
  return `${lines.join("\n")}\n\n`;
}

function fieldRows(schema: Schema, prefix: string, depth: number): string[] {
  const object = objectPart(schema);
  if (!object || depth > MAX_DEPTH) return [];
  const required = new Set((object.required as string[] | undefined) ?? []);
  const rows: string[] = [];
  for (const [name, child] of Object.entries((object.properties as Record<string, Schema> | undefined) ?? {})) {
    const path = `${prefix}${name}`;
    const description = typeof child.description === "string" ? ` — ${child.description}` : "";
    rows.push(`| \`${path}\` | ${cell(typeOf(child))}${cell(description)} | ${required.has(name) ? "yes" : ""} |`);
    const items = child.type === "array" && isSchema(child.items) ? child.items : undefined;
    rows.push(...(items ? fieldRows(items, `${path}[].`, depth + 1) : fieldRows(child, `${path}.`, depth + 1)));
  }
  return rows;
}

/** The object schema inside `schema` (itself, or the one object branch of a nullable union). */
function objectPart(schema: Schema): Schema | undefined {
  if (schema.properties) return schema;
  const branches = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  const objects = branches?.filter((b) => b.properties) ?? [];
  return objects.length === 1 ? objects[0] : undefined;
}

function typeOf(schema: Schema): string {
  if ("const" in schema) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join(" \\| ");
  const branches = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (branches) return branches.map(typeOf).join(" \\| ");
  if (typeof schema.$ref === "string") return `\`${schema.$ref}\``;
  if (schema.type === "array") {
    const item = isSchema(schema.items) ? typeOf(schema.items) : "any";
    return item.includes(" \\| ") ? `(${item})[]` : `${item}[]`;
  }
  if (Array.isArray(schema.type)) return schema.type.join(" \\| ");
  if (schema.type === "object" && !schema.properties && isSchema(schema.additionalProperties)) return `{ [key]: ${typeOf(schema.additionalProperties)} }`;
  return typeof schema.type === "string" ? schema.type : "any";
}

function isSchema(value: unknown): value is Schema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function anchor(name: string, version: number): string {
  return `${name}${version}`.replace(/[^a-z0-9-]/g, "");
}

/** Escapes the pipes a table cell may not hold (unions are written escaped already). */
function cell(text: string): string {
  return text.replace(/(?<!\\)\|/g, "\\|").replace(/\n/g, " ");
}
