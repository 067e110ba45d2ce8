/**
 * Change codes of `diffSchemas` (docs/contracts-compat.md). Names follow the
 * keyword they concern; `UNDECIDABLE` marks a change the checker could not judge in
 * at least one direction, and always counts as incompatible there.
 */
const BOUNDED = ["MINIMUM", "MAXIMUM", "EXCLUSIVE_MINIMUM", "EXCLUSIVE_MAXIMUM", "MIN_LENGTH", "MAX_LENGTH", "MIN_ITEMS", "MAX_ITEMS", "MIN_PROPERTIES", "MAX_PROPERTIES"] as const;
type Bounded = (typeof BOUNDED)[number];
type BoundChange = `${Bounded}_${"ADDED" | "REMOVED" | "INCREASED" | "DECREASED"}`;

export const CHANGE_CODES = [
  "TYPE_CHANGED",
  "TYPE_NARROWED",
  "TYPE_WIDENED",
  "ENUM_ADDED",
  "ENUM_REMOVED",
  "ENUM_VALUE_ADDED",
  "ENUM_VALUE_REMOVED",
  "CONST_ADDED",
  "CONST_REMOVED",
  "CONST_CHANGED",
  ...BOUNDED.flatMap((b) => (["ADDED", "REMOVED", "INCREASED", "DECREASED"] as const).map((d): BoundChange => `${b}_${d}`)),
  "MULTIPLE_OF_ADDED",
  "MULTIPLE_OF_REMOVED",
  "MULTIPLE_OF_CHANGED",
  "PATTERN_ADDED",
  "PATTERN_REMOVED",
  "PATTERN_CHANGED",
  "FORMAT_ADDED",
  "FORMAT_REMOVED",
  "FORMAT_CHANGED",
  "REQUIRED_PROPERTY_ADDED",
  "REQUIRED_PROPERTY_REMOVED",
  "PROPERTY_ADDED",
  "PROPERTY_REMOVED",
  "ADDITIONAL_PROPERTIES_NARROWED",
  "ADDITIONAL_PROPERTIES_WIDENED",
  "PATTERN_PROPERTIES_CHANGED",
  "DEPENDENCY_ADDED",
  "DEPENDENCY_REMOVED",
  "DEPENDENCY_CHANGED",
  "ITEMS_CHANGED",
  "UNIQUE_ITEMS_ADDED",
  "UNIQUE_ITEMS_REMOVED",
  "BRANCH_ADDED",
  "BRANCH_REMOVED",
  "COMBINATOR_CHANGED",
  "NOT_CHANGED",
  "REF_CHANGED",
  "METADATA_CHANGED",
  "UNDECIDABLE",
] as const;

export type ChangeCode = (typeof CHANGE_CODES)[number];

export type CompatibilityMode = "backward" | "forward" | "full";
export const COMPATIBILITY_MODES: readonly CompatibilityMode[] = ["backward", "forward", "full"];

/** One difference between two schemas, with what it does to each direction on its own. */
export interface SchemaChange {
  code: ChangeCode;
  /** JSON pointer of the schema location, fragment form (`#/properties/status`). */
  path: string;
  /** The change keeps every instance valid under the old schema valid under the new one. */
  backward: boolean;
  /** The change keeps every instance valid under the new schema valid under the old one. */
  forward: boolean;
  message: string;
}

export interface SchemaDiff {
  changes: SchemaChange[];
  /** Every instance valid under `old` is valid under `new`. */
  backward: boolean;
  /** Every instance valid under `new` is valid under `old`. */
  forward: boolean;
  full: boolean;
}

/** The verdict of a diff for one mode. */
export function isCompatible(diff: Pick<SchemaDiff, "backward" | "forward">, mode: CompatibilityMode): boolean {
  return mode === "backward" ? diff.backward : mode === "forward" ? diff.forward : diff.backward && diff.forward;
}

/** Whether `change` breaks `mode`. */
export function breaks(change: Pick<SchemaChange, "backward" | "forward">, mode: CompatibilityMode): boolean {
  return !isCompatible(change, mode);
}
