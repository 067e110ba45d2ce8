export { validateAgainst, compileSchema, type ValidationIssue, type ValidationResult } from "./ajv.js";
export { defineContract, publishedSchema, contractId, type ContractDefinition } from "./define.js";
export { HOOK_NAMES, type HookName } from "./shared.js";
export { ManifestV1, type Reference, type HookDeclaration, type ReducerSpec, type ChannelDeclaration } from "./manifest/v1.js";
export { StackV1, type StackEntry } from "./stack/v1.js";
