import { Ajv2020 } from "ajv/dist/2020.js";
import type { ErrorObject, ValidateFunction } from "ajv";
import addFormatsModule from "ajv-formats";

// ajv-formats is CommonJS; under NodeNext its default import is the module object.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => Ajv2020;

export interface ValidationIssue {
  /** JSON pointer of the offending value ("" for the root). */
  pointer: string;
  message: string;
}

export interface ValidationResult {
  valid: boolean;
  errors: ValidationIssue[];
}

function createAjv(useDefaults: boolean): Ajv2020 {
  const ajv = new Ajv2020({ allErrors: true, strict: false, useDefaults, allowUnionTypes: true });
  addFormats(ajv);
  return ajv;
}

const plain = createAjv(false);
const withDefaults = createAjv(true);
const cache = new WeakMap<object, ValidateFunction>();
const cacheWithDefaults = new WeakMap<object, ValidateFunction>();
const byText = new Map<string, ValidateFunction>();
const byTextWithDefaults = new Map<string, ValidateFunction>();

/**
 * Compile once per schema: validators are cached by identity, then by JSON text, so copies of
 * one schema (10,000 plugins from one factory, each with its own `config` object) compile once.
 */
export function compileSchema(schema: object, options: { applyDefaults?: boolean } = {}): ValidateFunction {
  const store = options.applyDefaults ? cacheWithDefaults : cache;
  let fn = store.get(schema);
  if (!fn) {
    const ajv = options.applyDefaults ? withDefaults : plain;
    const texts = options.applyDefaults ? byTextWithDefaults : byText;
    // `$id`s are dropped so one schema object can be compiled by both instances without a clash.
    const { $id: _id, ...rest } = schema as Record<string, unknown>;
    const text = jsonText(rest);
    fn = text === undefined ? undefined : texts.get(text);
    if (!fn) {
      fn = ajv.compile(rest);
      if (text !== undefined) texts.set(text, fn);
    }
    store.set(schema, fn);
  }
  return fn;
}

/** The schema's JSON text, or undefined when it has none (a cycle, a non-JSON value). */
function jsonText(schema: object): string | undefined {
  try {
    return JSON.stringify(schema);
  } catch {
    return undefined;
  }
}

export function toIssues(errors: ErrorObject[] | null | undefined): ValidationIssue[] {
  return (errors ?? []).map((e) => {
    let pointer = e.instancePath;
    if (e.keyword === "required") pointer += `/${(e.params as { missingProperty: string }).missingProperty}`;
    if (e.keyword === "additionalProperties") pointer += `/${(e.params as { additionalProperty: string }).additionalProperty}`;
    const message =
      e.keyword === "additionalProperties"
        ? `unknown property \`${(e.params as { additionalProperty: string }).additionalProperty}\``
        : e.keyword === "required"
          ? `missing required property \`${(e.params as { missingProperty: string }).missingProperty}\``
          : (e.message ?? e.keyword);
    return { pointer, message };
  });
}

/** Validate `value` against a JSON Schema; with `applyDefaults`, defaults are written into `value`. */
export function validateAgainst(schema: object, value: unknown, options: { applyDefaults?: boolean } = {}): ValidationResult {
  const fn = compileSchema(schema, options);
  const valid = fn(value) as boolean;
  return { valid, errors: valid ? [] : dedupeIssues(toIssues(narrowUnionErrors(fn.errors ?? []))) };
}

/**
 * Unions report one error per failed branch; keep the most specific (deepest) pointers
 * so a user sees "/plugins/2/config: must be object", not three generic lines.
 */
function dedupeIssues(issues: ValidationIssue[]): ValidationIssue[] {
  const seen = new Set<string>();
  const out: ValidationIssue[] = [];
  for (const issue of issues) {
    const key = `${issue.pointer}\u0000${issue.message}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push(issue);
    }
  }
  return out;
}

function pointerOf(error: ErrorObject): string {
  return toIssues([error])[0]!.pointer;
}

/** What a union branch accepts when it rejects the value outright (a wrong constant or type). */
interface Rejection {
  values: unknown[];
  types: string[];
}

/**
 * A branch that fails only on `const`/`enum`/`type` at the union's own pointer was never
 * meant for the value: say what it accepts instead. A branch with a `const`/`enum` error
 * accepts those values only (its `type` is implied by them).
 */
function rootRejection(errors: ErrorObject[], instancePath: string): Rejection | undefined {
  if (errors.length === 0) return undefined;
  if (!errors.every((e) => e.instancePath === instancePath && (e.keyword === "const" || e.keyword === "enum" || e.keyword === "type"))) return undefined;
  const values = errors.flatMap((e) =>
    e.keyword === "const" ? [(e.params as { allowedValue: unknown }).allowedValue] : e.keyword === "enum" ? [...(e.params as { allowedValues: unknown[] }).allowedValues] : [],
  );
  const enumTypes = errors.flatMap((e) => (e.keyword === "enum" ? ((e.params as { types?: string[] }).types ?? []) : []));
  const types = values.length > 0 ? enumTypes : errors.flatMap((e) => [(e.params as { type: string | string[] }).type].flat());
  return { values, types };
}

const ARTICLE: Record<string, string> = { object: "an object", array: "an array", string: "a string", number: "a number", integer: "an integer", boolean: "a boolean", null: "null" };

/** `must be one of \`"a"\`, \`"b"\` or an object` */
export function allowedMessage(values: readonly unknown[], types: readonly string[]): string {
  const named = types.map((t) => ARTICLE[t] ?? t);
  if (values.length === 0) return `must be ${named.join(" or ")}`;
  const listed = values.map((v) => `\`${JSON.stringify(v)}\``).join(", ");
  const head = values.length === 1 ? `must be ${listed}` : `must be one of ${listed}`;
  return named.length === 0 ? head : `${head}, or ${named.join(" or ")}`;
}

/**
 * AJV reports every failed branch of an `anyOf`/`oneOf` plus the union itself. Innermost
 * unions first:
 * - when every branch rejects the value outright (wrong constant or type), the whole
 *   union becomes one message listing what is allowed (`must be one of "middleware", "service"`);
 * - otherwise the branches that rejected it outright are dropped, and of the rest the one
 *   the value was meant for is kept: the one whose first `const` mismatch (a discriminator
 *   such as `event`) is deepest, then the one that got furthest into the value. So an invalid
 *   `guard` event reports `/data/action`, not "`event` must be `values`" for nine other branches.
 */
export function narrowUnionErrors(errors: ErrorObject[]): ErrorObject[] {
  let kept = [...errors];
  const unions = errors
    .filter((e) => e.keyword === "anyOf" || e.keyword === "oneOf")
    .sort((a, b) => b.schemaPath.length - a.schemaPath.length);
  for (const union of unions) {
    const prefix = `${union.schemaPath}/`;
    const inside = (e: ErrorObject) =>
      e !== union &&
      e.schemaPath.startsWith(prefix) &&
      (e.instancePath === union.instancePath || e.instancePath.startsWith(`${union.instancePath}/`));
    const branchOf = (e: ErrorObject) => e.schemaPath.slice(prefix.length).split("/")[0]!;
    const byBranch = new Map<string, ErrorObject[]>();
    for (const e of kept.filter(inside)) byBranch.set(branchOf(e), [...(byBranch.get(branchOf(e)) ?? []), e]);
    if (byBranch.size === 0) continue;

    const rejections = new Map<string, Rejection>();
    for (const [branch, branchErrors] of byBranch) {
      const rejection = rootRejection(branchErrors, union.instancePath);
      if (rejection) rejections.set(branch, rejection);
    }
    if (rejections.size === byBranch.size) {
      const values = [...new Set([...rejections.values()].flatMap((r) => r.values))];
      const types = [...new Set([...rejections.values()].flatMap((r) => r.types))];
      const collapsed: ErrorObject = { ...union, keyword: "enum", params: { allowedValues: values, types }, message: allowedMessage(values, types) };
      kept = kept.flatMap((e) => (e === union ? [collapsed] : inside(e) ? [] : [e]));
      continue;
    }
    const discriminator = sharedConstMismatch(kept.filter(inside), branchOf, byBranch.size);
    if (discriminator) {
      kept = kept.flatMap((e) => (e === union ? [discriminator] : inside(e) ? [] : [e]));
      continue;
    }
    const candidates = [...byBranch].filter(([branch]) => !rejections.has(branch));
    const scores = new Map<string, { constDepth: number; depth: number }>();
    for (const [branch, branchErrors] of candidates) {
      const score = { constDepth: Infinity, depth: 0 };
      for (const e of branchErrors) {
        const depth = pointerOf(e).split("/").length;
        if (e.keyword === "const") score.constDepth = Math.min(score.constDepth, depth);
        score.depth = Math.max(score.depth, depth);
      }
      scores.set(branch, score);
    }
    const bestConst = Math.max(...[...scores.values()].map((s) => s.constDepth));
    const bestDepth = Math.max(...[...scores.values()].filter((s) => s.constDepth === bestConst).map((s) => s.depth));
    const winners = new Set([...scores].filter(([, s]) => s.constDepth === bestConst && s.depth === bestDepth).map(([branch]) => branch));
    kept = kept.filter((e) => (e === union ? winners.size > 1 : !inside(e) || winners.has(branchOf(e))));
  }
  return kept;
}

/**
 * When every branch fails on a `const` at one and the same pointer (an `event` no
 * branch knows), the only useful message is the list of values that would do.
 */
function sharedConstMismatch(errors: ErrorObject[], branchOf: (e: ErrorObject) => string, branches: number): ErrorObject | undefined {
  const consts = errors.filter((e) => e.keyword === "const");
  const pointers = new Set(consts.map((e) => e.instancePath));
  if (pointers.size !== 1 || new Set(consts.map(branchOf)).size !== branches) return undefined;
  const allowed = [...new Set(consts.map((e) => (e.params as { allowedValue: unknown }).allowedValue))];
  return { ...consts[0]!, keyword: "enum", params: { allowedValues: allowed }, message: allowedMessage(allowed, []) };
}
