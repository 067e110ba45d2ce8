/**
 * What the checker knows about each keyword. Metadata never changes which instances are
 * valid; opaque keywords are assertions the checker does not model, so a difference in
 * them is UNDECIDABLE. Anything else not listed (vendor extensions, `x-…`) is ignored
 * by our validators and therefore treated as metadata.
 */
import type { JsonType } from "./types.js";

export const METADATA_KEYWORDS = new Set([
  "title",
  "description",
  "examples",
  "$comment",
  "default",
  "readOnly",
  "writeOnly",
  "deprecated",
  "$id",
  "$schema",
  "$anchor",
  "$vocabulary",
  "contentMediaType",
  "contentEncoding",
  "contentSchema",
]);

/** Keywords that hold schemas reached only through `$ref`. */
export const DEFINITION_KEYWORDS = new Set(["$defs", "definitions"]);

export const MODELLED_KEYWORDS = new Set([
  "$ref",
  "type",
  "enum",
  "const",
  "allOf",
  "anyOf",
  "oneOf",
  "not",
  "multipleOf",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "minLength",
  "maxLength",
  "pattern",
  "format",
  "items",
  "prefixItems",
  "additionalItems",
  "minItems",
  "maxItems",
  "uniqueItems",
  "properties",
  "patternProperties",
  "additionalProperties",
  "required",
  "minProperties",
  "maxProperties",
  "dependentRequired",
  "dependentSchemas",
  "dependencies",
]);

/**
 * Assertion keywords compared only for equality, with the types they constrain and the
 * sibling keywords read together with them.
 */
export const OPAQUE_KEYWORDS: Record<string, { types: readonly JsonType[] | "all"; with: readonly string[]; interacts?: boolean }> = {
  contains: { types: ["array"], with: ["minContains", "maxContains"] },
  propertyNames: { types: ["object"], with: [] },
  if: { types: "all", with: ["then", "else"] },
  unevaluatedProperties: { types: ["object"], with: [], interacts: true },
  unevaluatedItems: { types: ["array"], with: [], interacts: true },
  $dynamicRef: { types: "all", with: [], interacts: true },
  $recursiveRef: { types: "all", with: [], interacts: true },
};

/** Keywords read only together with an opaque keyword above. */
export const OPAQUE_COMPANIONS = new Set(["minContains", "maxContains", "then", "else", "$dynamicAnchor", "$recursiveAnchor"]);

export function isMetadataKeyword(kw: string): boolean {
  return (
    METADATA_KEYWORDS.has(kw) ||
    (!MODELLED_KEYWORDS.has(kw) && !DEFINITION_KEYWORDS.has(kw) && !Object.hasOwn(OPAQUE_KEYWORDS, kw) && !OPAQUE_COMPANIONS.has(kw))
  );
}
