/**
 * Schema pairs with their expected verdicts and change codes, written from instance
 * semantics (backward: every instance valid under `old` is valid under `new`). Where a
 * pair mirrors one of Confluent Schema Registry's JSON Schema examples, `confluent`
 * records its backward verdict; `divergence` explains the rare case where instance
 * semantics and Confluent's rule set disagree (CONTRACTS.md: instance semantics win).
 */
export interface CompatCase {
  name: string;
  old: unknown;
  new: unknown;
  backward: boolean;
  forward: boolean;
  /** Expected change codes (as a set). */
  codes: string[];
  /** The checker reports UNDECIDABLE here: incompatible without a counterexample guarantee. */
  undecidable?: boolean;
  confluent?: "compatible" | "incompatible";
  divergence?: string;
  note?: string;
}

const D07 = "http://json-schema.org/draft-07/schema#";
const D2020 = "https://json-schema.org/draft/2020-12/schema";

export const CORPUS: CompatCase[] = [
  // --- types ---
  { name: "type changed", old: { type: "string" }, new: { type: "number" }, backward: false, forward: false, codes: ["TYPE_CHANGED"] },
  { name: "object to array", old: { type: "object" }, new: { type: "array" }, backward: false, forward: false, codes: ["TYPE_CHANGED"], confluent: "incompatible" },
  { name: "nullable added", old: { type: "string" }, new: { type: ["string", "null"] }, backward: true, forward: false, codes: ["TYPE_WIDENED"] },
  { name: "nullable removed", old: { type: ["string", "null"] }, new: { type: "string" }, backward: false, forward: true, codes: ["TYPE_NARROWED"] },
  { name: "type array widened", old: { type: ["object"] }, new: { type: ["object", "array"] }, backward: true, forward: false, codes: ["TYPE_WIDENED"], confluent: "compatible" },
  { name: "integer to number", old: { type: "integer" }, new: { type: "number" }, backward: true, forward: false, codes: ["TYPE_WIDENED"], confluent: "compatible" },
  { name: "number to integer", old: { type: "number" }, new: { type: "integer" }, backward: false, forward: true, codes: ["TYPE_NARROWED"], confluent: "incompatible" },
  { name: "type as one-element array (rewrite)", old: { type: ["string"], minLength: 1 }, new: { type: "string", minLength: 1 }, backward: true, forward: true, codes: [] },
  { name: "even numbers are integers", old: { type: "number", multipleOf: 2 }, new: { type: "integer" }, backward: true, forward: false, codes: ["MULTIPLE_OF_REMOVED"] },
  { name: "anything to empty schema", old: { properties: {} }, new: {}, backward: true, forward: true, codes: [], confluent: "compatible" },
  { name: "true to false", old: true, new: false, backward: false, forward: true, codes: ["TYPE_NARROWED"] },
  { name: "false to a schema", old: false, new: { type: "string" }, backward: true, forward: false, codes: ["TYPE_WIDENED"] },
  { name: "empty schema equals true", old: {}, new: true, backward: true, forward: true, codes: [] },

  // --- enum / const ---
  { name: "enum value added", old: { enum: ["a", "b"] }, new: { enum: ["a", "b", "c"] }, backward: true, forward: false, codes: ["ENUM_VALUE_ADDED"] },
  { name: "enum value removed", old: { enum: ["a", "b", "c"] }, new: { enum: ["a", "b"] }, backward: false, forward: true, codes: ["ENUM_VALUE_REMOVED"] },
  { name: "const rewritten as enum", old: { const: "x" }, new: { enum: ["x"] }, backward: true, forward: true, codes: [] },
  { name: "const changed", old: { properties: { foo: { const: "red" } } }, new: { properties: { foo: { const: "blue" } } }, backward: false, forward: false, codes: ["CONST_CHANGED"], confluent: "incompatible" },
  { name: "const added", old: { type: "string" }, new: { type: "string", const: "a" }, backward: false, forward: true, codes: ["CONST_ADDED"] },
  { name: "enum removed", old: { type: "string", enum: ["red"] }, new: { type: "string" }, backward: true, forward: false, codes: ["ENUM_REMOVED"], confluent: "compatible" },
  { name: "mixed-type enum loses a number", old: { enum: ["a", 1] }, new: { enum: ["a"] }, backward: false, forward: true, codes: ["ENUM_VALUE_REMOVED"] },
  { name: "literal union widened", old: { anyOf: [{ const: "a" }, { const: "b" }] }, new: { enum: ["a", "b", "c"] }, backward: true, forward: false, codes: ["ENUM_VALUE_ADDED"] },
  { name: "enum inside allOf, reordered", old: { allOf: [{ type: "string" }, { enum: ["red"] }] }, new: { allOf: [{ enum: ["red", "blue"] }, { type: "string" }] }, backward: true, forward: false, codes: ["ENUM_VALUE_ADDED"], confluent: "compatible" },
  { name: "enum inside allOf, replaced", old: { allOf: [{ type: "string" }, { enum: ["red"] }] }, new: { allOf: [{ type: "string" }, { enum: ["blue"] }] }, backward: false, forward: false, codes: ["ENUM_VALUE_ADDED", "ENUM_VALUE_REMOVED"], confluent: "incompatible" },
  { name: "integer range equals enum", old: { type: "integer", minimum: 1, maximum: 3 }, new: { enum: [1, 2, 3] }, backward: true, forward: true, codes: [] },
  { name: "enum filtered by a narrower maxLength", old: { type: "string", enum: ["a", "bb"], maxLength: 2 }, new: { type: "string", enum: ["a", "bb"], maxLength: 1 }, backward: false, forward: true, codes: ["MAX_LENGTH_DECREASED"] },

  // --- strings ---
  { name: "minLength increased", old: { type: "string", minLength: 10 }, new: { type: "string", minLength: 11 }, backward: false, forward: true, codes: ["MIN_LENGTH_INCREASED"], confluent: "incompatible" },
  { name: "minLength decreased", old: { type: "string", minLength: 11 }, new: { type: "string", minLength: 10 }, backward: true, forward: false, codes: ["MIN_LENGTH_DECREASED"], confluent: "compatible" },
  { name: "maxLength increased", old: { type: "string", maxLength: 10 }, new: { type: "string", maxLength: 12 }, backward: true, forward: false, codes: ["MAX_LENGTH_INCREASED"], confluent: "compatible" },
  { name: "maxLength added", old: { type: "string" }, new: { type: "string", maxLength: 5 }, backward: false, forward: true, codes: ["MAX_LENGTH_ADDED"] },
  { name: "pattern added", old: { type: "string" }, new: { type: "string", pattern: "^[a-z]+$" }, backward: false, forward: true, codes: ["PATTERN_ADDED"] },
  { name: "pattern removed", old: { type: "string", pattern: "uuid" }, new: { type: "string" }, backward: true, forward: false, codes: ["PATTERN_REMOVED"], confluent: "compatible" },
  { name: "pattern changed (undecidable)", old: { type: "string", pattern: "^[a-z]+$" }, new: { type: "string", pattern: "^[a-z0-9]+$" }, backward: false, forward: false, codes: ["UNDECIDABLE"], undecidable: true, confluent: "incompatible", note: "the new pattern does accept every old string, but the checker does not compare regular expressions: it says UNDECIDABLE (incompatible), never compatible" },
  { name: "literal-alternation pattern widened", old: { type: "string", pattern: "^(red|green)$" }, new: { type: "string", pattern: "^(red|green|blue)$" }, backward: true, forward: false, codes: ["PATTERN_CHANGED"] },
  { name: "format added", old: { type: "string" }, new: { type: "string", format: "date-time" }, backward: false, forward: true, codes: ["FORMAT_ADDED"] },
  { name: "format removed", old: { type: "string", format: "email" }, new: { type: "string" }, backward: true, forward: false, codes: ["FORMAT_REMOVED"] },
  { name: "format widened to iso-date-time", old: { type: "string", format: "date-time" }, new: { type: "string", format: "iso-date-time" }, backward: true, forward: false, codes: ["FORMAT_CHANGED"] },
  { name: "unknown format added (undecidable)", old: { type: "string" }, new: { type: "string", format: "x-colour" }, backward: false, forward: true, codes: ["UNDECIDABLE"], undecidable: true },

  // --- numbers ---
  { name: "minimum increased", old: { type: "number", minimum: 10 }, new: { type: "number", minimum: 11 }, backward: false, forward: true, codes: ["MINIMUM_INCREASED"], confluent: "incompatible" },
  { name: "maximum removed", old: { type: "number", maximum: 10 }, new: { type: "number" }, backward: true, forward: false, codes: ["MAXIMUM_REMOVED"], confluent: "compatible" },
  { name: "maximum decreased", old: { type: "number", maximum: 11 }, new: { type: "number", maximum: 10 }, backward: false, forward: true, codes: ["MAXIMUM_DECREASED"], confluent: "incompatible" },
  { name: "exclusiveMaximum made inclusive", old: { type: "number", exclusiveMaximum: 10 }, new: { type: "number", maximum: 10 }, backward: true, forward: false, codes: ["EXCLUSIVE_MAXIMUM_REMOVED", "MAXIMUM_ADDED"] },
  { name: "integer minimum 1 vs exclusiveMinimum 0 (rewrite)", old: { type: "integer", minimum: 1 }, new: { type: "integer", exclusiveMinimum: 0 }, backward: true, forward: true, codes: [] },
  { name: "number minimum 1 vs exclusiveMinimum 0", old: { type: "number", minimum: 1 }, new: { type: "number", exclusiveMinimum: 0 }, backward: true, forward: false, codes: ["MINIMUM_REMOVED", "EXCLUSIVE_MINIMUM_ADDED"] },
  { name: "multipleOf reduced to a divisor", old: { type: "number", multipleOf: 10 }, new: { type: "number", multipleOf: 2 }, backward: true, forward: false, codes: ["MULTIPLE_OF_CHANGED"], confluent: "compatible" },
  { name: "multipleOf changed", old: { type: "number", multipleOf: 10 }, new: { type: "number", multipleOf: 11 }, backward: false, forward: false, codes: ["MULTIPLE_OF_CHANGED"], confluent: "incompatible" },
  { name: "multipleOf added", old: { type: "integer" }, new: { type: "integer", multipleOf: 5 }, backward: false, forward: true, codes: ["MULTIPLE_OF_ADDED"] },

  // --- objects ---
  { name: "required property added", old: { properties: { foo: { type: "string" } } }, new: { properties: { foo: { type: "string" } }, required: ["foo"] }, backward: false, forward: true, codes: ["REQUIRED_PROPERTY_ADDED"], confluent: "incompatible" },
  { name: "required property removed", old: { properties: { foo: { type: "string" } }, required: ["foo"] }, new: { properties: { foo: { type: "string" } } }, backward: true, forward: false, codes: ["REQUIRED_PROPERTY_REMOVED"], confluent: "compatible" },
  { name: "required list changed", old: { properties: { foo: { type: "string" } }, required: ["foo"] }, new: { properties: { foo: { type: "string" } }, required: ["bar"] }, backward: false, forward: false, codes: ["REQUIRED_PROPERTY_ADDED", "REQUIRED_PROPERTY_REMOVED"], confluent: "compatible", divergence: "`{\"foo\":\"x\"}` is valid under the old schema and lacks the newly required `bar`; Confluent only checks `required` against declared properties" },
  { name: "optional property added to a closed model", old: { properties: { foo: { type: "string" } }, additionalProperties: false }, new: { properties: { foo: { type: "string" }, bar: { type: "number" } }, additionalProperties: false }, backward: true, forward: false, codes: ["PROPERTY_ADDED"], confluent: "compatible" },
  { name: "property added to an open model", old: { properties: { foo: { type: "string" } } }, new: { properties: { foo: { type: "string" }, bar: { type: "number" } } }, backward: false, forward: true, codes: ["PROPERTY_ADDED"], confluent: "incompatible" },
  { name: "empty schema added to an open model", old: { additionalProperties: true }, new: { additionalProperties: true, properties: { foo: true } }, backward: true, forward: true, codes: [], confluent: "compatible" },
  { name: "false added to a closed model", old: { additionalProperties: false }, new: { additionalProperties: false, properties: { foo: false } }, backward: true, forward: true, codes: [], confluent: "compatible" },
  { name: "property removed from a closed model", old: { type: "object", properties: { a: { type: "string" }, b: { type: "string" } }, additionalProperties: false }, new: { type: "object", properties: { a: { type: "string" } }, additionalProperties: false }, backward: false, forward: true, codes: ["PROPERTY_REMOVED"] },
  { name: "property removed from an open model", old: { type: "object", properties: { a: { type: "string" }, b: { type: "string" } } }, new: { type: "object", properties: { a: { type: "string" } } }, backward: true, forward: false, codes: ["PROPERTY_REMOVED"] },
  { name: "properties renamed in an open model", old: { properties: { foo: { type: "string" } } }, new: { properties: { bar: { type: "string" } } }, backward: false, forward: false, codes: ["PROPERTY_ADDED", "PROPERTY_REMOVED"], confluent: "incompatible" },
  { name: "property type changed", old: { properties: { foo: { type: "string" } } }, new: { properties: { foo: { type: "number" } } }, backward: false, forward: false, codes: ["TYPE_CHANGED"], confluent: "incompatible" },
  { name: "open model closed", old: { additionalProperties: true }, new: { additionalProperties: false }, backward: false, forward: true, codes: ["ADDITIONAL_PROPERTIES_NARROWED"], confluent: "incompatible" },
  { name: "open model narrowed to numbers", old: { additionalProperties: true }, new: { additionalProperties: { type: "number" } }, backward: false, forward: true, codes: ["ADDITIONAL_PROPERTIES_NARROWED"], confluent: "incompatible" },
  { name: "closed model opened to strings", old: { properties: { foo: { type: "string" }, bar: { type: "string" } }, additionalProperties: false }, new: { properties: { foo: { type: "string" } }, additionalProperties: { type: "string" } }, backward: true, forward: false, codes: ["ADDITIONAL_PROPERTIES_WIDENED"], confluent: "compatible" },
  { name: "closed model opened to strings, number property lost", old: { properties: { foo: { type: "string" }, bar: { type: "number" } }, additionalProperties: false }, new: { properties: { foo: { type: "string" } }, additionalProperties: { type: "string" } }, backward: false, forward: false, codes: ["PROPERTY_REMOVED", "ADDITIONAL_PROPERTIES_WIDENED"], confluent: "incompatible" },
  { name: "additionalProperties schema changed", old: { additionalProperties: { type: "string" } }, new: { additionalProperties: { type: "number" } }, backward: false, forward: false, codes: ["TYPE_CHANGED"], confluent: "incompatible" },
  { name: "property added to a partially open model, same schema", old: { properties: { foo: { type: "string" } }, additionalProperties: { type: "string" } }, new: { properties: { foo: { type: "string" }, bar: { type: "string" } }, additionalProperties: { type: "string" } }, backward: true, forward: true, codes: [], confluent: "compatible" },
  { name: "property added to a partially open model, other schema", old: { properties: { foo: { type: "string" } }, additionalProperties: { type: "string" } }, new: { properties: { foo: { type: "string" }, bar: { type: "number" } }, additionalProperties: { type: "string" } }, backward: false, forward: false, codes: ["PROPERTY_ADDED"], confluent: "incompatible" },
  { name: "property covered by patternProperties", old: { properties: { foo: { type: "string" } }, additionalProperties: false, patternProperties: { "^S_": { type: "string" }, "^I_": { type: "integer" } } }, new: { properties: { foo: { type: "string" }, I_123: { type: "number" } }, additionalProperties: false, patternProperties: { "^S_": { type: "string" }, "^I_": { type: "integer" } } }, backward: true, forward: true, codes: [], confluent: "compatible" },
  { name: "patternProperties added to a closed model", old: { properties: { foo: { type: "string" }, I_123: { type: "integer" } }, additionalProperties: false }, new: { properties: { foo: { type: "string" } }, additionalProperties: false, patternProperties: { "^S_": { type: "string" }, "^I_": { type: "number" } } }, backward: true, forward: false, codes: ["PROPERTY_REMOVED", "PATTERN_PROPERTIES_CHANGED"], confluent: "compatible" },
  { name: "patternProperties schema changed", old: { type: "object", patternProperties: { "^x-": { type: "string" } } }, new: { type: "object", patternProperties: { "^x-": { type: "number" } } }, backward: false, forward: false, codes: ["TYPE_CHANGED"] },
  { name: "minProperties increased", old: { minProperties: 1 }, new: { minProperties: 2 }, backward: false, forward: true, codes: ["MIN_PROPERTIES_INCREASED"], confluent: "incompatible" },
  { name: "maxProperties increased", old: { maxProperties: 1 }, new: { maxProperties: 2 }, backward: true, forward: false, codes: ["MAX_PROPERTIES_INCREASED"], confluent: "compatible" },
  { name: "dependentRequired added", old: { $schema: D2020, type: "object" }, new: { $schema: D2020, type: "object", dependentRequired: { card: ["address"] } }, backward: false, forward: true, codes: ["DEPENDENCY_ADDED"] },
  { name: "draft-07 dependencies array moved", old: { properties: { foo: { type: "number" }, bar: { type: "string" } }, dependencies: { foo: ["bar"] } }, new: { properties: { foo: { type: "number" }, bar: { type: "string" } }, dependencies: { bar: ["foo"] } }, backward: false, forward: false, codes: ["DEPENDENCY_ADDED", "DEPENDENCY_REMOVED"], confluent: "incompatible" },
  { name: "draft-07 dependency schema removed", old: { dependencies: { foo: { type: "string" }, bar: { type: "string" } } }, new: { dependencies: { foo: { type: "string" } } }, backward: true, forward: false, codes: ["DEPENDENCY_REMOVED"], confluent: "compatible" },
  { name: "draft-07 dependency schema moved", old: { dependencies: { foo: { type: "string" } } }, new: { dependencies: { bar: { type: "string" } } }, backward: false, forward: false, codes: ["DEPENDENCY_ADDED", "DEPENDENCY_REMOVED"], confluent: "incompatible" },
  { name: "nested property narrowed", old: { type: "object", properties: { a: { type: "object", properties: { b: { type: "integer" } } } } }, new: { type: "object", properties: { a: { type: "object", properties: { b: { type: "integer", minimum: 0 } } } } }, backward: false, forward: true, codes: ["MINIMUM_ADDED"] },

  // --- arrays ---
  { name: "items schema added", old: { type: "array" }, new: { type: "array", items: { type: "string" } }, backward: false, forward: true, codes: ["ITEMS_CHANGED"], confluent: "incompatible" },
  { name: "items schema removed", old: { type: "array", items: { type: "string" } }, new: { type: "array" }, backward: true, forward: false, codes: ["ITEMS_CHANGED"], confluent: "compatible" },
  { name: "items made nullable", old: { type: "array", items: { type: "string" } }, new: { type: "array", items: { type: ["string", "null"] } }, backward: true, forward: false, codes: ["TYPE_WIDENED"] },
  { name: "minItems increased", old: { type: "array", minItems: 1 }, new: { type: "array", minItems: 2 }, backward: false, forward: true, codes: ["MIN_ITEMS_INCREASED"], confluent: "incompatible" },
  { name: "maxItems decreased", old: { type: "array", maxItems: 2 }, new: { type: "array", maxItems: 1 }, backward: false, forward: true, codes: ["MAX_ITEMS_DECREASED"], confluent: "incompatible" },
  { name: "uniqueItems added", old: { type: "array" }, new: { type: "array", uniqueItems: true }, backward: false, forward: true, codes: ["UNIQUE_ITEMS_ADDED"] },
  { name: "uniqueItems removed", old: { type: "array", uniqueItems: true }, new: { type: "array" }, backward: true, forward: false, codes: ["UNIQUE_ITEMS_REMOVED"], confluent: "compatible" },
  { name: "2020 tuple closed and extended", old: { $schema: D2020, type: "array", prefixItems: [{ type: "string" }, { type: "number" }], items: false }, new: { $schema: D2020, type: "array", prefixItems: [{ type: "string" }, { type: "number" }, { type: "boolean" }], items: true }, backward: true, forward: false, codes: ["ITEMS_CHANGED"] },
  { name: "draft-07 tuple item added to partially open model", old: { type: "array", items: [{ type: "string" }, { type: "number" }], additionalItems: { type: "string" } }, new: { type: "array", items: [{ type: "string" }, { type: "number" }, { type: "string" }], additionalItems: { type: "string" } }, backward: true, forward: true, codes: [], confluent: "compatible" },
  { name: "draft-07 tuple item added with another schema", old: { type: "array", items: [{ type: "string" }, { type: "number" }], additionalItems: { type: "string" } }, new: { type: "array", items: [{ type: "string" }, { type: "number" }, { type: "number" }], additionalItems: { type: "string" } }, backward: false, forward: false, codes: ["ITEMS_CHANGED"], confluent: "incompatible" },
  { name: "draft-07 closed tuple becomes a partially open one", old: { $schema: D07, type: "array", items: [{ type: "string" }, { type: "number" }], additionalItems: false }, new: { $schema: D07, type: "array", items: [{ type: "string" }], additionalItems: { type: "number" } }, backward: true, forward: false, codes: ["ITEMS_CHANGED"], confluent: "compatible" },
  { name: "draft-07 additionalItems without an items array is ignored", old: { additionalItems: true }, new: { additionalItems: false }, backward: true, forward: true, codes: [], confluent: "incompatible", divergence: "without an `items` array, draft-07 ignores `additionalItems`, so both schemas accept every instance" },

  // --- combinators ---
  { name: "anyOf branch added", old: { anyOf: [{ type: "object", properties: { kind: { const: "a" } }, required: ["kind"] }] }, new: { anyOf: [{ type: "object", properties: { kind: { const: "a" } }, required: ["kind"] }, { type: "object", properties: { kind: { const: "b" }, n: { type: "integer" } }, required: ["kind", "n"] }] }, backward: true, forward: false, codes: ["BRANCH_ADDED"] },
  { name: "anyOf branch removed", old: { anyOf: [{ type: "object", required: ["a"] }, { type: "object", required: ["b"] }] }, new: { anyOf: [{ type: "object", required: ["a"] }] }, backward: false, forward: true, codes: ["BRANCH_REMOVED"] },
  { name: "anyOf branch narrowed", old: { anyOf: [{ type: "object", properties: { v: { type: "string" } }, required: ["v"] }, { type: "object", properties: { w: { type: "number" } }, required: ["w"] }] }, new: { anyOf: [{ type: "object", properties: { v: { type: "string", maxLength: 3 } }, required: ["v"] }, { type: "object", properties: { w: { type: "number" } }, required: ["w"] }] }, backward: false, forward: true, codes: ["MAX_LENGTH_ADDED"] },
  { name: "oneOf branch added that overlaps", old: { oneOf: [{ type: "string", maxLength: 3 }, { type: "number" }] }, new: { oneOf: [{ type: "string", maxLength: 3 }, { type: "number" }, { type: "string", minLength: 2 }] }, backward: false, forward: false, codes: ["BRANCH_ADDED"] },
  { name: "oneOf branch added that is disjoint", old: { oneOf: [{ type: "string" }, { type: "number" }] }, new: { oneOf: [{ type: "string" }, { type: "number" }, { type: "null" }] }, backward: true, forward: false, codes: ["TYPE_WIDENED"] },
  { name: "oneOf of one branch to allOf", old: { oneOf: [{ type: "string" }] }, new: { allOf: [{ type: "string" }] }, backward: true, forward: true, codes: [], confluent: "compatible" },
  { name: "oneOf of two to allOf of one", old: { oneOf: [{ type: "string" }, { type: "integer" }] }, new: { allOf: [{ type: "string" }] }, backward: false, forward: true, codes: ["TYPE_NARROWED"], confluent: "incompatible" },
  { name: "string to oneOf of number or string", old: { type: "string", maxLength: 3 }, new: { oneOf: [{ type: "number" }, { type: "string" }] }, backward: true, forward: false, codes: ["TYPE_WIDENED", "MAX_LENGTH_REMOVED"], confluent: "compatible" },
  { name: "oneOf branch changed", old: { oneOf: [{ type: "string" }] }, new: { oneOf: [{ type: "number" }] }, backward: false, forward: false, codes: ["TYPE_CHANGED"], confluent: "incompatible" },
  { name: "anyOf became oneOf with overlapping branches", old: { anyOf: [{ type: "string", minLength: 1 }, { type: "string", maxLength: 5 }] }, new: { oneOf: [{ type: "string", minLength: 1 }, { type: "string", maxLength: 5 }] }, backward: false, forward: true, codes: ["COMBINATOR_CHANGED"] },
  { name: "nullable string narrowed", old: { anyOf: [{ type: "string", maxLength: 5 }, { type: "null" }] }, new: { anyOf: [{ type: "string", maxLength: 3 }, { type: "null" }] }, backward: false, forward: true, codes: ["MAX_LENGTH_DECREASED"] },
  { name: "not widened", old: { not: { type: "number" } }, new: { not: { type: "integer" } }, backward: true, forward: false, codes: ["NOT_CHANGED"], confluent: "compatible" },
  { name: "not narrowed", old: { not: { type: "integer" } }, new: { not: { type: "number" } }, backward: false, forward: true, codes: ["NOT_CHANGED"], confluent: "incompatible" },
  { name: "not const added", old: { type: "string" }, new: { type: "string", not: { const: "" } }, backward: false, forward: true, codes: ["NOT_CHANGED"] },

  // --- $ref / $defs ---
  { name: "referenced definition changed", old: { type: "array", items: { $ref: "#/definitions/someRef" }, definitions: { someRef: { type: "string" } } }, new: { type: "array", items: { $ref: "#/definitions/someRef" }, definitions: { someRef: { type: "number" } } }, backward: false, forward: false, codes: ["TYPE_CHANGED"], confluent: "incompatible" },
  { name: "inline moved to a reference", old: { type: "string" }, new: { $ref: "#/definitions/someRef", definitions: { someRef: { type: "string" } } }, backward: true, forward: true, codes: [], confluent: "compatible" },
  { name: "reference moved inline", old: { $ref: "#/definitions/someRef", definitions: { someRef: { type: "string" } } }, new: { type: "string" }, backward: true, forward: true, codes: [], confluent: "compatible" },
  { name: "$ref retargeted to a wider definition", old: { $schema: D2020, type: "object", properties: { v: { $ref: "#/$defs/small" } }, $defs: { small: { type: "integer", maximum: 9 }, any: { type: "integer" } } }, new: { $schema: D2020, type: "object", properties: { v: { $ref: "#/$defs/any" } }, $defs: { small: { type: "integer", maximum: 9 }, any: { type: "integer" } } }, backward: true, forward: false, codes: ["REF_CHANGED"] },
  { name: "recursive tree widened deep inside", old: { $schema: D2020, $ref: "#/$defs/node", $defs: { node: { type: "object", properties: { v: { type: "integer" }, children: { type: "array", items: { $ref: "#/$defs/node" } } }, required: ["v"] } } }, new: { $schema: D2020, $ref: "#/$defs/node", $defs: { node: { type: "object", properties: { v: { type: "number" }, children: { type: "array", items: { $ref: "#/$defs/node" } } }, required: ["v"] } } }, backward: true, forward: false, codes: ["TYPE_WIDENED"] },

  // --- metadata and unmodelled keywords ---
  { name: "metadata only", old: { type: "string", title: "a", description: "x", examples: ["q"] }, new: { type: "string", title: "b", default: "z", deprecated: true }, backward: true, forward: true, codes: ["METADATA_CHANGED"], confluent: "compatible" },
  { name: "$id changed", old: { $id: "something" }, new: { $id: "something_else" }, backward: true, forward: true, codes: ["METADATA_CHANGED"], confluent: "compatible" },
  { name: "propertyNames added (undecidable)", old: { type: "object" }, new: { type: "object", propertyNames: { maxLength: 3 } }, backward: false, forward: true, codes: ["UNDECIDABLE"], undecidable: true },
  { name: "if/then/else changed (undecidable)", old: { if: { type: "string" }, then: { minLength: 1 } }, new: { if: { type: "string" }, then: { minLength: 2 } }, backward: false, forward: false, codes: ["UNDECIDABLE"], undecidable: true },

  // --- shapes like Keel's contracts ---
  { name: "closed payload: status value added", old: { type: "object", required: ["status"], properties: { status: { enum: ["succeeded", "failed"] } }, additionalProperties: false }, new: { type: "object", required: ["status"], properties: { status: { enum: ["succeeded", "failed", "partial"] } }, additionalProperties: false }, backward: true, forward: false, codes: ["ENUM_VALUE_ADDED"] },
  { name: "closed payload: new required field", old: { type: "object", required: ["a"], properties: { a: { type: "string" } }, additionalProperties: false }, new: { type: "object", required: ["a", "b"], properties: { a: { type: "string" }, b: { type: "string" } }, additionalProperties: false }, backward: false, forward: false, codes: ["PROPERTY_ADDED", "REQUIRED_PROPERTY_ADDED"] },
  { name: "closed payload: bound widened", old: { type: "object", properties: { brief: { type: "string", maxLength: 2000 } }, additionalProperties: false }, new: { type: "object", properties: { brief: { type: "string", maxLength: 4000 } }, additionalProperties: false }, backward: true, forward: false, codes: ["MAX_LENGTH_INCREASED"] },
  { name: "discriminated union gains a variant", old: { anyOf: [{ type: "object", required: ["event", "data"], properties: { event: { const: "end" }, data: { type: "null" } }, additionalProperties: false }, { type: "object", required: ["event", "data"], properties: { event: { const: "values" }, data: { type: "object" } }, additionalProperties: false }] }, new: { anyOf: [{ type: "object", required: ["event", "data"], properties: { event: { const: "end" }, data: { type: "null" } }, additionalProperties: false }, { type: "object", required: ["event", "data"], properties: { event: { const: "values" }, data: { type: "object" } }, additionalProperties: false }, { type: "object", required: ["event", "data"], properties: { event: { const: "gap" }, data: { type: "object" } }, additionalProperties: false }] }, backward: true, forward: false, codes: ["BRANCH_ADDED"] },
];
