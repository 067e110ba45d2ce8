export { diffSchemas } from "./diff.js";
export { CHANGE_CODES, COMPATIBILITY_MODES, isCompatible, breaks, type ChangeCode, type CompatibilityMode, type SchemaChange, type SchemaDiff } from "./codes.js";
