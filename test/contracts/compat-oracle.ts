/**
 * An independent check of the compatibility checker: AJV decides validity, and a small
 * instance generator (written apart from the checker's own sampler) proposes values —
 * enum/const values, numbers around every bound, strings of boundary lengths and
 * matching simple patterns, objects with and without each known property plus extra
 * ones, arrays of boundary sizes, and a pool of generic values.
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import AjvModule from "ajv";
import addFormatsModule from "ajv-formats";

type Json = unknown;
type AnyAjv = { compile(schema: object | boolean): (v: unknown) => boolean };

const Ajv07 = ((AjvModule as unknown as { default?: unknown }).default ?? AjvModule) as new (opts: object) => AnyAjv;
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: AnyAjv) => AnyAjv;

let ajv2020: AnyAjv | undefined;
let ajv07: AnyAjv | undefined;

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function usesDraft07Keywords(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(usesDraft07Keywords);
  if (!isObj(node)) return false;
  if (Array.isArray(node.items) || "additionalItems" in node || "dependencies" in node) return true;
  return Object.entries(node).some(([k, v]) => !["enum", "const", "examples", "default"].includes(k) && usesDraft07Keywords(v));
}

/** Whether the schema is read as draft-07 by the oracle (explicitly, or by its keywords when `$schema` is absent). */
export function isDraft07(schema: unknown): boolean {
  const dialect = isObj(schema) && typeof schema.$schema === "string" ? schema.$schema : "";
  if (/draft-0[4-7]/.test(dialect)) return true;
  if (dialect) return false;
  return usesDraft07Keywords(schema);
}

/** An AJV validator for the schema, in its dialect, with formats asserted. */
const validators = new Map<string, (v: unknown) => boolean>();

export function validatorFor(schema: unknown): (v: unknown) => boolean {
  const key = JSON.stringify(schema);
  let fn = validators.get(key);
  if (!fn) validators.set(key, (fn = compile(schema)));
  return fn;
}

function compile(schema: unknown): (v: unknown) => boolean {
  const copy = JSON.parse(JSON.stringify(schema)) as unknown;
  if (isObj(copy)) {
    delete copy.$id;
    if (isDraft07(copy)) delete copy.$schema;
  }
  const ajv = isDraft07(copy)
    ? (ajv07 ??= addFormats(new Ajv07({ strict: false, allowUnionTypes: true, logger: false })))
    : (ajv2020 ??= addFormats(new Ajv2020({ strict: false, allowUnionTypes: true, logger: false }) as unknown as AnyAjv));
  return ajv.compile(copy as object | boolean);
}

const FORMAT_SAMPLES = [
  "2024-01-02T03:04:05Z",
  "2024-01-02T03:04:05",
  "2024-01-02",
  "03:04:05Z",
  "03:04:05",
  "a@example.com",
  "https://example.com/a",
  "a/b",
  "123e4567-e89b-12d3-a456-426614174000",
  "127.0.0.1",
  "::1",
  "example.com",
  "not a format",
];

const GENERIC: Json[] = [null, true, false, 0, 1, -1, 1.5, -2.5, 7, "", "a", "abc", "A1-", [], [1], ["a"], {}, { a: 1 }];

/** A handful of strings matching a simple regex (literals, classes, groups, alternation, quantifiers). */
export function regexSamples(pattern: string): string[] {
  try {
    const [node, rest] = parseAlt(pattern, 0);
    if (rest !== pattern.length) return [];
    return [...new Set([...render(node, 0), ...render(node, 1), ...render(node, 2)])].slice(0, 12);
  } catch {
    return [];
  }
}

type Node = { alt: Item[][] } ;
type Item = { chars?: string[]; group?: Node; min: number; max: number };

function parseAlt(p: string, i: number): [Node, number] {
  const alts: Item[][] = [[]];
  while (i < p.length && p[i] !== ")") {
    const ch = p[i]!;
    if (ch === "|") {
      alts.push([]);
      i++;
      continue;
    }
    if (ch === "^" || ch === "$") {
      i++;
      continue;
    }
    let item: Item;
    if (ch === "(") {
      i++;
      if (p.startsWith("?:", i)) i += 2;
      else if (p[i] === "?") throw new Error("lookaround");
      const [group, next] = parseAlt(p, i);
      if (p[next] !== ")") throw new Error("unclosed");
      i = next + 1;
      item = { group, min: 1, max: 1 };
    } else if (ch === "[") {
      const end = p.indexOf("]", i + 2);
      if (end < 0) throw new Error("class");
      item = { chars: classChars(p.slice(i + 1, end)), min: 1, max: 1 };
      i = end + 1;
    } else if (ch === "\\") {
      item = { chars: escapeChars(p[i + 1]!), min: 1, max: 1 };
      i += 2;
    } else if (ch === ".") {
      item = { chars: ["a", "Z", "0"], min: 1, max: 1 };
      i++;
    } else {
      item = { chars: [ch], min: 1, max: 1 };
      i++;
    }
    const q = p[i];
    if (q === "*") (item.min = 0), (item.max = 3), i++;
    else if (q === "+") (item.min = 1), (item.max = 3), i++;
    else if (q === "?") (item.min = 0), (item.max = 1), i++;
    else if (q === "{") {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(p.slice(i));
      if (!m) throw new Error("quantifier");
      item.min = Number(m[1]);
      item.max = m[2] ? (m[3] ? Number(m[3]) : item.min + 3) : item.min;
      i += m[0].length;
    }
    alts[alts.length - 1]!.push(item);
  }
  return [{ alt: alts }, i];
}

function escapeChars(c: string): string[] {
  if (c === "d") return ["0", "7"];
  if (c === "w") return ["a", "Z", "_"];
  if (c === "s") return [" "];
  if (c === "D") return ["a"];
  if (c === "W") return ["-"];
  return [c];
}

function classChars(body: string): string[] {
  if (body.startsWith("^")) {
    const excluded = new Set(classChars(body.slice(1)));
    return ["a", "Z", "0", "-", " ", "!"].filter((c) => !excluded.has(c)).slice(0, 2);
  }
  const out: string[] = [];
  for (let i = 0; i < body.length; i++) {
    if (body[i] === "\\") {
      out.push(...escapeChars(body[i + 1]!));
      i++;
    } else if (body[i + 1] === "-" && i + 2 < body.length) {
      out.push(body[i]!, body[i + 2]!);
      i += 2;
    } else out.push(body[i]!);
  }
  return out;
}

function render(node: Node, variant: number): string[] {
  return node.alt.map((seq) =>
    seq
      .map((item) => {
        const reps = variant === 0 ? item.min : Math.min(item.max, item.min + variant);
        const unit = item.group ? render(item.group, variant)[variant % item.group.alt.length] ?? "" : item.chars![variant % item.chars!.length]!;
        return unit.repeat(reps);
      })
      .join(""),
  );
}

interface Pools {
  numbers: Set<number>;
  strings: Set<string>;
  literals: Json[];
  names: Set<string>;
}

function collect(node: unknown, pools: Pools): void {
  if (Array.isArray(node)) return node.forEach((n) => collect(n, pools));
  if (!isObj(node)) return;
  for (const kw of ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]) {
    const v = node[kw];
    if (typeof v === "number") for (const d of [0, 1, -1, 0.5, -0.5, 0.25, -0.25]) pools.numbers.add(v + d);
  }
  if (typeof node.multipleOf === "number") for (const k of [1, 2, 3, 1.5, -1, 0.5]) pools.numbers.add(node.multipleOf * k);
  const lengths = [node.minLength, node.maxLength].filter((v): v is number => typeof v === "number");
  for (const len of lengths) for (const n of [len - 1, len, len + 1]) if (n >= 0) for (const ch of ["a", "0", "Z"]) pools.strings.add(ch.repeat(n));
  if (typeof node.pattern === "string") {
    for (const s of regexSamples(node.pattern)) {
      pools.strings.add(s);
      for (const n of lengths) pools.strings.add(s.padEnd(n, s.at(-1) ?? "a").slice(0, Math.max(n, 0)));
      pools.strings.add(`${s}!`);
      pools.strings.add(s.slice(1));
    }
  }
  if (node.format !== undefined) FORMAT_SAMPLES.forEach((s) => pools.strings.add(s));
  if (Array.isArray(node.enum)) pools.literals.push(...node.enum);
  if ("const" in node) pools.literals.push(node.const);
  for (const kw of ["properties", "patternProperties", "dependencies", "dependentRequired", "dependentSchemas"]) {
    if (isObj(node[kw])) {
      for (const key of Object.keys(node[kw] as object)) {
        if (kw === "patternProperties") regexSamples(key).forEach((s) => pools.names.add(s));
        else pools.names.add(key);
      }
    }
  }
  if (Array.isArray(node.required)) node.required.forEach((r) => typeof r === "string" && pools.names.add(r));
  for (const [k, v] of Object.entries(node)) if (!["enum", "const", "examples", "default"].includes(k)) collect(v, pools);
}

function resolve(root: unknown, ref: string): unknown {
  if (!ref.startsWith("#")) return true;
  const tokens = ref.slice(1).split("/").filter(Boolean).map((t) => decodeURIComponent(t).replace(/~1/g, "/").replace(/~0/g, "~"));
  let at: unknown = root;
  for (const t of tokens) at = isObj(at) || Array.isArray(at) ? (at as Record<string, unknown>)[t] : undefined;
  return at ?? true;
}

function scalars(pools: Pools): Json[] {
  return [...GENERIC, ...pools.literals, ...pools.numbers, ...pools.strings];
}

/** Structured values shaped like `schema`, filled from the pools. */
function shaped(schema: unknown, root: unknown, pools: Pools, depth: number, limit = 1500): Json[] {
  if (!isObj(schema) || depth < 0) return [];
  const out: Json[] = [];
  const full = () => out.length >= limit;
  if (typeof schema.$ref === "string") out.push(...shaped(resolve(root, schema.$ref), root, pools, depth - 1, limit));
  for (const kw of ["allOf", "anyOf", "oneOf"]) if (Array.isArray(schema[kw])) for (const b of schema[kw] as unknown[]) if (!full()) out.push(...shaped(b, root, pools, depth, limit));
  for (const kw of ["not", "if", "then", "else"]) if (schema[kw] !== undefined && !full()) out.push(...shaped(schema[kw], root, pools, depth, limit));
  if (Array.isArray(schema.enum)) out.push(...schema.enum);
  if ("const" in schema) out.push(schema.const);
  const types = typeof schema.type === "string" ? [schema.type] : Array.isArray(schema.type) ? schema.type : ["object", "array"];
  const memo = new Map<unknown, Json[]>();
  const child = (s: unknown) => {
    let values = memo.get(s);
    if (!values) memo.set(s, (values = [...shaped(s, root, pools, depth - 1, 8).slice(0, 8), ...typedScalars(s, root, pools), {}]));
    return values;
  };
  if (types.includes("object") && depth > 0 && !full()) {
    const props = isObj(schema.properties) ? (schema.properties as Record<string, unknown>) : {};
    const names = [...new Set([...Object.keys(props), ...pools.names, "extra"])];
    const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
    const valuesOf = (name: string) => child(props[name] ?? (isObj(schema.additionalProperties) ? schema.additionalProperties : true));
    const base: Record<string, Json> = Object.fromEntries(required.map((r) => [r, valuesOf(r)[0]]));
    out.push({}, base);
    for (const name of names) for (const v of valuesOf(name)) if (!full()) out.push({ ...base, [name]: v });
    for (const r of required) {
      const { [r]: _dropped, ...rest } = base;
      out.push(rest);
    }
    out.push({ ...base, ...Object.fromEntries(names.map((n) => [n, valuesOf(n)[0]])) });
    out.push({ ...base, extra: 1, extra2: "a" }, { ...base, extra: 1, extra2: "a", extra3: null });
  }
  if (types.includes("array") && depth > 0 && !full()) {
    const prefix = Array.isArray(schema.prefixItems) ? schema.prefixItems : Array.isArray(schema.items) ? schema.items : [];
    const rest = Array.isArray(schema.items) ? schema.additionalItems : schema.items;
    const at = (i: number) => child(i < prefix.length ? prefix[i] : (rest ?? true));
    const sizes = [0, 1, 2, 3, prefix.length, prefix.length + 1, schema.minItems, schema.maxItems].filter((n): n is number => typeof n === "number");
    for (const size of new Set(sizes.flatMap((n) => [n - 1, n, n + 1]).filter((n) => n >= 0 && n <= 5))) {
      for (let variant = 0; variant < 4; variant++) out.push(Array.from({ length: size }, (_, i) => at(i)[variant] ?? null));
      if (size >= 2) out.push(Array.from({ length: size }, () => at(0)[0] ?? null));
    }
  }
  return out.slice(0, limit);
}

/** Pool scalars of the types a schema declares (all of them when it declares none). */
function typedScalars(schema: unknown, root: unknown, pools: Pools): Json[] {
  let at = schema;
  for (let hops = 0; hops < 8 && isObj(at) && typeof at.$ref === "string"; hops++) at = resolve(root, at.$ref);
  const declared = isObj(at) ? at.type : undefined;
  const types = new Set<string>(typeof declared === "string" ? [declared] : Array.isArray(declared) ? (declared as string[]) : ["null", "boolean", "number", "string"]);
  const out: Json[] = [];
  if (types.has("null")) out.push(null);
  if (types.has("boolean")) out.push(true, false);
  if (types.has("number") || types.has("integer")) out.push(...[...pools.numbers].slice(0, 40));
  if (types.has("string")) out.push(...[...pools.strings].slice(0, 60));
  if (isObj(at) && Array.isArray(at.enum)) out.push(...at.enum);
  if (isObj(at) && "const" in at) out.push(at.const);
  if (!types.has("string")) out.push("a");
  if (!types.has("number") && !types.has("integer")) out.push(1);
  return out;
}

/** Candidate instances for a pair (or more) of schemas. */
export function instances(...schemas: unknown[]): Json[] {
  const pools: Pools = { numbers: new Set([0, 1, -1, 2, 3, 0.5, 1.5, 10, 100, 1e6, -1e6]), strings: new Set(["", "a", "ab", "abc", "A", "0", "hello world", "-"]), literals: [], names: new Set() };
  FORMAT_SAMPLES.forEach((s) => pools.strings.add(s));
  schemas.forEach((s) => collect(s, pools));
  const all = [...scalars(pools), ...schemas.flatMap((s) => shaped(s, s, pools, 3))];
  const seen = new Set<string>();
  return all.filter((v) => {
    const key = JSON.stringify(v);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Instances valid under `from` and invalid under `to`. */
export function counterexamples(from: unknown, to: unknown, candidates: Json[]): Json[] {
  const [a, b] = [validatorFor(from), validatorFor(to)];
  return candidates.filter((v) => a(v) && !b(v));
}
