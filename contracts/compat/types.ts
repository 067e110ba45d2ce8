/**
 * The checker's internal model. A schema location is read into a `Shape`: a union of
 * `Atom`s, each one JSON type plus the constraints that apply to values of that type.
 * Keywords that constrain one type only (`minimum`, `minLength`, `properties`…) land in
 * that type's facet, so comparing two schemas is comparing atoms of the same type.
 */
import type { ChangeCode } from "./codes.js";

/** Three-valued answers: "unknown" always counts as incompatible. */
export type Tri = "yes" | "no" | "unknown";

export type JsonType = "null" | "boolean" | "number" | "string" | "array" | "object";
export const JSON_TYPES: readonly JsonType[] = ["null", "boolean", "number", "string", "array", "object"];

/** A parsed schema document: the root plus how to read it (dialect) and where its ids live. */
export interface Doc {
  readonly root: unknown;
  /** Read draft-07 / 2019-09 keywords (`items` arrays, `additionalItems`, `dependencies`). */
  readonly legacy: boolean;
  /** `$id` (absolute, without fragment) and `$anchor` / `#name` ids → location. */
  readonly ids: Map<string, Ref>;
}

/** One schema location in a document. `ptr` is its pointer in fragment form (`#/properties/a`). */
export interface Ref {
  readonly doc: Doc;
  readonly node: unknown;
  readonly ptr: string;
}

/** A keyword value together with the pointer of the keyword that set it. */
export interface Sourced<T> {
  readonly value: T;
  readonly ptr: string;
}

export interface Bound {
  readonly value: number;
  readonly exclusive: boolean;
  readonly kw: "minimum" | "exclusiveMinimum" | "maximum" | "exclusiveMaximum";
  readonly ptr: string;
}

export interface NumberFacet {
  integer: boolean;
  lower: Bound[];
  upper: Bound[];
  multipleOf: Sourced<number>[];
  formats: Sourced<string>[];
}

export interface StringFacet {
  minLength: Sourced<number>[];
  maxLength: Sourced<number>[];
  patterns: Sourced<string>[];
  formats: Sourced<string>[];
}

/** One `prefixItems`/`items` pair (draft-07: `items` array / `additionalItems`). */
export interface ArrayRecord {
  readonly ptr: string;
  readonly prefix: Ref[];
  /** Schema for positions after the prefix; undefined = anything. */
  readonly rest?: Ref;
}

export interface ArrayFacet {
  minItems: Sourced<number>[];
  maxItems: Sourced<number>[];
  unique?: string;
  records: ArrayRecord[];
}

/** One `properties`/`patternProperties`/`additionalProperties` group (allOf gives several). */
export interface ObjectRecord {
  readonly ptr: string;
  readonly props: Map<string, Ref>;
  readonly patterns: Map<string, Ref>;
  /** undefined = anything. */
  readonly additional?: Ref;
}

export interface ObjectFacet {
  required: Map<string, string>;
  minProperties: Sourced<number>[];
  maxProperties: Sourced<number>[];
  records: ObjectRecord[];
  depRequired: { key: string; names: string[]; ptr: string }[];
  depSchemas: { key: string; ref: Ref; ptr: string }[];
}

/** An unmodelled assertion keyword; compared only for equality. */
export interface Opaque {
  readonly kw: string;
  readonly key: string;
  readonly ptr: string;
  readonly owner: Ref;
}

export interface OneOfGroup {
  readonly ptr: string;
  readonly branches: Ref[];
}

export interface Atom {
  readonly id: number;
  readonly type: JsonType;
  /** Pointer of the `type` keyword that admitted this type, if any. */
  typePtr?: string;
  /** A finite set from `enum`/`const`. */
  values?: { items: Sourced<unknown>[]; kw: "enum" | "const" };
  num?: NumberFacet;
  str?: StringFacet;
  arr?: ArrayFacet;
  obj?: ObjectFacet;
  nots: Ref[];
  opaque: Opaque[];
  /** `oneOf` branches this atom came from; a value must match exactly that one. */
  oneOf: { group: OneOfGroup; index: number }[];
  /** Set when the atom only over-approximates its location (recursion, bad schema). */
  inexact?: string;
}

export interface Shape {
  readonly id: number;
  readonly atoms: Atom[];
}

/** A change as the walker builds it: flags stay three-valued until the end. */
export interface RawChange {
  code: ChangeCode;
  path: string;
  backward: Tri;
  forward: Tri;
  message: string;
}

export interface Verdict {
  backward: Tri;
  forward: Tri;
}

export interface Result extends Verdict {
  changes: RawChange[];
}

export function and(...values: Tri[]): Tri {
  if (values.includes("no")) return "no";
  if (values.includes("unknown")) return "unknown";
  return "yes";
}

export function or(...values: Tri[]): Tri {
  if (values.includes("yes")) return "yes";
  if (values.includes("unknown")) return "unknown";
  return "no";
}

export function not(value: Tri): Tri {
  return value === "yes" ? "no" : value === "no" ? "yes" : "unknown";
}

export function tri(value: boolean): Tri {
  return value ? "yes" : "no";
}

/** "no" from reasoning over an over-approximation is only a maybe. */
export function soften(value: Tri, exact: boolean): Tri {
  return value === "no" && !exact ? "unknown" : value;
}
