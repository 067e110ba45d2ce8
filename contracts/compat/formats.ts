import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import type { RawChange, Sourced, Tri } from "./types.js";
import { and } from "./types.js";

// ajv-formats is CommonJS; under NodeNext its default import is the module object.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => Ajv2020;

/** Formats ajv-formats checks on numbers; every other format applies to strings. */
export const NUMBER_FORMATS = new Set(["int32", "int64", "float", "double"]);

/**
 * Known inclusions between formats as ajv-formats implements them: every `uri` is a
 * `uri-reference`, every RFC 3339 `date-time` an `iso-date-time`, … (small on purpose).
 */
const NARROWER: Record<string, string[]> = {
  "uri-reference": ["uri"],
  "iso-date-time": ["date-time"],
  "iso-time": ["time"],
  int64: ["int32"],
  double: ["float", "int32", "int64"],
  float: ["double", "int32", "int64"],
};

let ajv: Ajv2020 | undefined;

function formatTable(): Record<string, unknown> {
  ajv ??= addFormats(new Ajv2020({ strict: false }));
  return ajv.formats as Record<string, unknown>;
}

export function isKnownFormat(name: string): boolean {
  return Object.hasOwn(formatTable(), name);
}

/** Whether `value` passes format `name` as our validators check it; unknown formats are "unknown". */
export function checkFormat(name: string, value: unknown): Tri {
  const def = formatTable()[name];
  if (def === undefined) return "unknown";
  const check = def as RegExp | ((v: unknown) => boolean) | { validate: RegExp | ((v: unknown) => boolean); type?: string; async?: boolean };
  const validate = typeof check === "object" && !(check instanceof RegExp) ? check.validate : check;
  const type = typeof check === "object" && !(check instanceof RegExp) ? (check.type ?? "string") : "string";
  if (typeof value !== type) return "yes";
  if (validate instanceof RegExp) return validate.test(String(value)) ? "yes" : "no";
  return validate(value) ? "yes" : "no";
}

/** Every instance of format `narrow` is an instance of `wide`. */
export function formatImplies(narrow: string, wide: string): boolean {
  return narrow === wide || (NARROWER[wide] ?? []).includes(narrow);
}

/**
 * FORMAT_* changes of one atom pair. `covers(side, format)` answers whether every value
 * the side admits passes `format`.
 */
export function formatChanges(
  old: Sourced<string>[],
  next: Sourced<string>[],
  covers: (side: "old" | "new", format: string) => Tri,
): RawChange[] {
  const oldNames = new Set(old.map((f) => f.value));
  const newNames = new Set(next.map((f) => f.value));
  const added = next.filter((f) => !oldNames.has(f.value));
  const removed = old.filter((f) => !newNames.has(f.value));
  const checkAdded = added.map((f) => covers("old", f.value));
  const checkRemoved = removed.map((f) => covers("new", f.value));
  if (added.length === 1 && removed.length === 1) {
    return [
      {
        code: "FORMAT_CHANGED",
        path: added[0]!.ptr,
        backward: checkAdded[0]!,
        forward: checkRemoved[0]!,
        message: `format changed from \`${removed[0]!.value}\` to \`${added[0]!.value}\``,
      },
    ];
  }
  return [
    ...added.map((f, i): RawChange => ({ code: "FORMAT_ADDED", path: f.ptr, backward: checkAdded[i]!, forward: "yes", message: `format \`${f.value}\` added` })),
    ...removed.map((f, i): RawChange => ({ code: "FORMAT_REMOVED", path: f.ptr, backward: "yes", forward: checkRemoved[i]!, message: `format \`${f.value}\` removed` })),
  ];
}

/** Every value in `values` passes `format`. */
export function allPass(values: unknown[], format: string): Tri {
  return and(...values.map((v) => checkFormat(format, v)));
}
