import type { JsonType } from "./types.js";
import { isRecord } from "../plain-object.js";

/** JSON text with object keys sorted, so equal values give equal strings. */
const canonicalCache = new WeakMap<object, string>();

export function canonical(value: unknown): string {
  if (typeof value === "object" && value !== null) {
    let text = canonicalCache.get(value);
    if (text === undefined) {
      if (Array.isArray(value)) text = `[${value.map(canonical).join(",")}]`;
      else {
        const obj = value as Record<string, unknown>;
        text = `{${Object.keys(obj).sort().map((k) => `${JSON.stringify(k)}:${canonical(obj[k])}`).join(",")}}`;
      }
      canonicalCache.set(value, text);
    }
    return text;
  }
  // JSON has one number 1 and 1.0; -0 prints as 0.
  return JSON.stringify(value) ?? "null";
}

export function deepEqual(a: unknown, b: unknown): boolean {
  return a === b || canonical(a) === canonical(b);
}

/** The JSON type of a value; integers are numbers (the integer check is a number constraint). */
export function jsonType(value: unknown): JsonType | undefined {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  switch (typeof value) {
    case "boolean":
      return "boolean";
    case "number":
      return Number.isFinite(value) ? "number" : undefined;
    case "string":
      return "string";
    case "object":
      return "object";
    default:
      return undefined;
  }
}

/** Characters kept as they are in a URI fragment; everything else is percent-encoded. */
const FRAGMENT_SAFE = /[A-Za-z0-9\-._~!$&'()*+,;=:@]/;

/** Append one reference token to a fragment pointer (`#/properties` + `a/b` → `#/properties/a~1b`). */
export function child(ptr: string, ...tokens: (string | number)[]): string {
  let out = ptr;
  for (const token of tokens) {
    const escaped = String(token).replace(/~/g, "~0").replace(/\//g, "~1");
    out += "/" + [...escaped].map((ch) => (FRAGMENT_SAFE.test(ch) ? ch : encodeURIComponent(ch))).join("");
  }
  return out;
}

/** The reference tokens of a fragment pointer (`#/a/b~1c` → ["a", "b/c"]); undefined if not a pointer. */
export function parsePointer(fragment: string): string[] | undefined {
  let text: string;
  try {
    text = decodeURIComponent(fragment);
  } catch {
    return undefined;
  }
  if (text === "") return [];
  if (!text.startsWith("/")) return undefined;
  return text
    .slice(1)
    .split("/")
    .map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
}

export function valueAt(root: unknown, tokens: string[]): unknown {
  let at: unknown = root;
  for (const token of tokens) {
    if (Array.isArray(at)) at = at[Number(token)];
    else if (isRecord(at)) at = Object.hasOwn(at, token) ? at[token] : undefined;
    else return undefined;
  }
  return at;
}

/** Backticked JSON for messages. */
export function show(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return `\`${text.length > 60 ? `${text.slice(0, 57)}...` : text}\``;
}
