import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { diffSchemas } from "../../contracts/compat/diff.js";
import { counterexamples, instances } from "./compat-oracle.js";

type Schema = Record<string, unknown> | boolean;

const NAMES = ["a", "b", "c"] as const;
const PATTERNS = ["^[a-z]+$", "^x", "^(on|off)$", "[0-9]"];

const optional = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
const small = fc.integer({ min: -3, max: 12 });

function compact(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}

const stringSchema = fc
  .record({
    type: fc.constant("string"),
    minLength: optional(fc.integer({ min: 0, max: 4 })),
    maxLength: optional(fc.integer({ min: 0, max: 6 })),
    pattern: optional(fc.constantFrom(...PATTERNS)),
    format: optional(fc.constantFrom("date", "email")),
    enum: optional(fc.uniqueArray(fc.constantFrom("on", "off", "x1", "", "abc"), { minLength: 1, maxLength: 3 })),
  })
  .map(compact);

const numberSchema = fc
  .record({
    type: fc.constantFrom("number", "integer"),
    minimum: optional(small),
    maximum: optional(small),
    exclusiveMinimum: optional(small),
    exclusiveMaximum: optional(small),
    multipleOf: optional(fc.constantFrom(1, 2, 3, 0.5)),
    enum: optional(fc.uniqueArray(fc.constantFrom(0, 1, 2, 3, 1.5, 10), { minLength: 1, maxLength: 3 })),
  })
  .map(compact);

const leaf: fc.Arbitrary<Schema> = fc.oneof(
  stringSchema,
  numberSchema,
  fc.constantFrom<Schema>({ type: "boolean" }, { type: "null" }, { const: "on" }, { enum: ["on", 1, null] }, true, {}, { type: ["string", "null"] }, { not: { type: "string" } }),
);

const { schema } = fc.letrec<{ schema: Schema }>((tie) => ({
  schema: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    leaf,
    fc
      .record({
        type: optional(fc.constant("object")),
        properties: fc.dictionary(fc.constantFrom(...NAMES), tie("schema"), { maxKeys: 3 }),
        required: optional(fc.uniqueArray(fc.constantFrom(...NAMES), { maxLength: 2 })),
        patternProperties: optional(fc.dictionary(fc.constantFrom("^x", "^a", "[0-9]"), tie("schema"), { maxKeys: 2 })),
        additionalProperties: optional(fc.oneof(fc.constant(false), fc.constant(true), leaf)),
        minProperties: optional(fc.integer({ min: 0, max: 2 })),
        maxProperties: optional(fc.integer({ min: 0, max: 3 })),
        dependentRequired: optional(fc.constantFrom({ a: ["b"] }, { c: ["a", "b"] })),
      })
      .map(compact),
    fc
      .record({
        type: fc.constant("array"),
        prefixItems: fc.array(tie("schema"), { minLength: 1, maxLength: 2 }),
        items: optional(fc.oneof(fc.constant(false), tie("schema"))),
      })
      .map(compact),
    fc.record({ not: tie("schema") }),
    fc.record({ type: fc.constant("object"), dependentSchemas: fc.record({ a: tie("schema") }) }),
    fc.constantFrom<Schema>(
      { const: { a: 1 } },
      { enum: [[1], [], "on"] },
      { type: "object", required: ["a"], properties: { a: { const: "x" } } },
      { $ref: "#/$defs/shared" },
      { if: { type: "string" }, then: { minLength: 1 } },
    ),
    fc
      .record({
        type: fc.constant("array"),
        items: optional(tie("schema")),
        minItems: optional(fc.integer({ min: 0, max: 2 })),
        maxItems: optional(fc.integer({ min: 0, max: 3 })),
        uniqueItems: optional(fc.constant(true)),
      })
      .map(compact),
    fc.record({ anyOf: fc.array(tie("schema"), { minLength: 1, maxLength: 3 }) }),
    fc.record({ oneOf: fc.array(tie("schema"), { minLength: 1, maxLength: 3 }) }),
    fc.record({ allOf: fc.array(tie("schema"), { minLength: 1, maxLength: 2 }) }),
  ),
}));

/** A document: the schema plus one shared definition that `$ref`s may point to. */
const SHARED = { type: "string", maxLength: 3 };
const document = schema.map((s): Schema => (typeof s === "boolean" || Array.isArray(s) ? s : { ...s, $defs: { shared: SHARED } }));

type Edit = { path: number; op: number; value: number };
const edits = fc.array(fc.record({ path: fc.nat(), op: fc.nat(), value: fc.integer({ min: -3, max: 8 }) }), { minLength: 1, maxLength: 3 });

/** Every schema object inside `s` (not the `properties` maps or enum values). */
function nodes(s: unknown, out: Record<string, unknown>[] = []): Record<string, unknown>[] {
  if (typeof s !== "object" || s === null || Array.isArray(s)) return out;
  const node = s as Record<string, unknown>;
  out.push(node);
  for (const kw of ["items", "additionalProperties", "not"]) nodes(node[kw], out);
  if (typeof node.$defs === "object" && node.$defs !== null) Object.values(node.$defs).forEach((d) => nodes(d, out));
  for (const kw of ["anyOf", "oneOf", "allOf"]) if (Array.isArray(node[kw])) (node[kw] as unknown[]).forEach((b) => nodes(b, out));
  if (typeof node.properties === "object" && node.properties !== null) Object.values(node.properties).forEach((p) => nodes(p, out));
  return out;
}

/** Small random edits of the kind schemas see between releases. */
function mutate(original: Schema, list: Edit[]): Schema {
  const copy = JSON.parse(JSON.stringify(original)) as Schema;
  if (typeof copy === "boolean") return list[0]!.op % 2 === 0 ? !copy : { type: "string" };
  for (const edit of list) {
    const all = nodes(copy);
    const node = all[edit.path % all.length]!;
    const numeric = ["minimum", "maximum", "minLength", "maxLength", "minItems", "maxItems", "maxProperties", "exclusiveMinimum"];
    switch (edit.op % 10) {
      case 0:
        node[numeric[edit.value & 7]!] = Math.max(0, edit.value);
        break;
      case 1: {
        const keys = Object.keys(node).filter((k) => k !== "$defs");
        if (keys.length > 0) delete node[keys[(edit.value & 7) % keys.length]!];
        break;
      }
      case 2:
        node.type = ["string", "number", "integer", "object", "array", "null"][(edit.value & 7) % 6];
        break;
      case 3:
        node.additionalProperties = edit.value % 2 === 0;
        break;
      case 4:
        node.required = [...new Set([...(Array.isArray(node.required) ? node.required : []), NAMES[Math.abs(edit.value) % 3]])];
        break;
      case 5:
        node.properties = { ...(node.properties as object), [NAMES[Math.abs(edit.value) % 3]!]: { type: edit.value % 2 === 0 ? "string" : "integer" } };
        break;
      case 6:
        if (Array.isArray(node.enum)) node.enum = [...new Set([...node.enum, edit.value])];
        else node.enum = ["on", edit.value];
        break;
      case 7:
        node.pattern = PATTERNS[Math.abs(edit.value) % PATTERNS.length];
        break;
      case 8:
        if (Array.isArray(node.anyOf)) node.anyOf = [...node.anyOf, { type: "boolean" }];
        else if (Array.isArray(node.oneOf)) node.oneOf = [...node.oneOf, { type: "string", maxLength: 2 }];
        else node.multipleOf = Math.max(1, edit.value);
        break;
      default:
        if (typeof node.maximum === "number") node.maximum += edit.value;
        else node.uniqueItems = true;
    }
  }
  return copy;
}

/** Equivalent spellings the checker should see through. */
function rewrite(s: Schema): Schema {
  const copy = JSON.parse(JSON.stringify(s)) as Schema;
  for (const node of nodes(copy)) {
    if (typeof node.type === "string") node.type = [node.type];
    if (node.const !== undefined && node.enum === undefined) {
      node.enum = [node.const];
      delete node.const;
    }
    if (node.type !== undefined && JSON.stringify(node.type) === '["integer"]' && typeof node.minimum === "number" && Number.isInteger(node.minimum) && node.exclusiveMinimum === undefined) {
      node.exclusiveMinimum = node.minimum - 1;
      delete node.minimum;
    }
  }
  if (typeof copy === "boolean") return copy;
  const { $defs, ...rest } = copy;
  return $defs === undefined ? { allOf: [rest] } : { allOf: [rest], $defs };
}

function assertSound(old: Schema, next: Schema): void {
  const diff = diffSchemas(old, next);
  const candidates = instances(old, next);
  if (diff.backward) expect(counterexamples(old, next, candidates), `backward claimed for\n${JSON.stringify(old)}\n→ ${JSON.stringify(next)}`).toEqual([]);
  if (diff.forward) expect(counterexamples(next, old, candidates), `forward claimed for\n${JSON.stringify(old)}\n→ ${JSON.stringify(next)}`).toEqual([]);
}

describe("diffSchemas properties", () => {
  it("a schema is fully compatible with itself, with no changes", () => {
    fc.assert(
      fc.property(document, (s) => {
        const diff = diffSchemas(s, JSON.parse(JSON.stringify(s)));
        expect(diff).toMatchObject({ backward: true, forward: true, full: true, changes: [] });
      }),
      { numRuns: 200 },
    );
  }, 30_000);

  it("an equivalent rewrite (type arrays, const as enum, integer bounds, allOf wrapper) is fully compatible", () => {
    fc.assert(
      fc.property(document, (s) => {
        const diff = diffSchemas(s, rewrite(s));
        expect(diff.full, JSON.stringify(diff.changes)).toBe(true);
      }),
      { numRuns: 200 },
    );
  }, 30_000);

  it("whenever it claims compatibility for an edited schema, no generated instance contradicts it", () => {
    fc.assert(
      fc.property(document, edits, (s, list) => {
        assertSound(s, mutate(s, list));
      }),
      { numRuns: 200 },
    );
  }, 30_000);

  it("whenever it claims compatibility for two unrelated schemas, no generated instance contradicts it", () => {
    fc.assert(
      fc.property(document, document, (a, b) => {
        assertSound(a, b);
      }),
      { numRuns: 120 },
    );
  }, 30_000);
});
