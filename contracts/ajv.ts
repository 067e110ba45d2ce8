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

/** Compile once per schema object (validators are cached by identity). */
export function compileSchema(schema: object, options: { applyDefaults?: boolean } = {}): ValidateFunction {
  const store = options.applyDefaults ? cacheWithDefaults : cache;
  let fn = store.get(schema);
  if (!fn) {
    const ajv = options.applyDefaults ? withDefaults : plain;
    // `$id`s are dropped so one schema object can be compiled by both instances without a clash.
    const { $id: _id, ...rest } = schema as Record<string, unknown>;
    fn = ajv.compile(rest);
    store.set(schema, fn);
  }
  return fn;
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
  return { valid, errors: valid ? [] : dedupeIssues(toIssues(fn.errors)) };
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
