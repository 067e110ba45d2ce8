import { contractError } from "./errors.js";
import { isRecord } from "./plain-object.js";
import { compileSchema, narrowUnionErrors, toIssues, type ValidationIssue, type ValidationResult } from "./ajv.js";
import { publishedSchema, type ContractDefinition } from "./define.js";
import acceptanceVerdictV1 from "./acceptance-verdict/v1.js";
import delegationV1 from "./delegation/v1.js";
import journalEntryV1 from "./journal-entry/v1.js";
import leaseV1 from "./lease/v1.js";
import manifestV1 from "./manifest/v1.js";
import receiptVerdictV1 from "./receipt-verdict/v1.js";
import receiptV1 from "./receipt/v1.js";
import runReportV1 from "./run-report/v1.js";
import runReportV2 from "./run-report/v2.js";
import runV1 from "./run/v1.js";
import scenarioV1 from "./scenario/v1.js";
import stackV1 from "./stack/v1.js";
import statusV1 from "./status/v1.js";
import statusV2 from "./status/v2.js";
import streamEventV1 from "./stream-event/v1.js";
import subagentReturnV1 from "./subagent-return/v1.js";

/** Every published contract; `keel schemas build` writes one schema file per entry. */
export const contracts: readonly ContractDefinition[] = Object.freeze([
  manifestV1,
  stackV1,
  statusV1,
  statusV2,
  scenarioV1,
  runReportV1,
  runReportV2,
  streamEventV1,
  journalEntryV1,
  subagentReturnV1,
  receiptV1,
  receiptVerdictV1,
  acceptanceVerdictV1,
  delegationV1,
  leaseV1,
  runV1,
]);

export interface ContractRef {
  name: string;
  version: number;
}

export interface ValidateOptions {
  /**
   * Tolerant reader: drop properties the schema does not know (a payload from a newer
   * revision of the same major) before validating. The caller's payload is not touched.
   */
  tolerant?: boolean;
}

const byRef = new Map<string, ContractDefinition>(contracts.map((def) => [`${def.name}@${def.version}`, def]));
const published = new Map<ContractDefinition, Record<string, unknown>>();

/**
 * Parse `name@version` (`status@2`; `status@v2` is accepted too).
 *
 * @example
 * parseContractRef("run-report@1"); // { name: "run-report", version: 1 }
 */
export function parseContractRef(ref: string): ContractRef {
  const match = /^([a-z][a-z0-9-]*)@v?(\d+)$/.exec(ref.trim());
  if (!match) {
    throw contractError("KEEL_ERR_CONTRACT_UNKNOWN", `\`${ref}\` is not a contract reference; expected \`name@version\`, e.g. \`status@2\``);
  }
  return { name: match[1]!, version: Number(match[2]) };
}

/** The definition of `name@version`; `getContract("status@2")` works too. Throws KEEL_ERR_CONTRACT_UNKNOWN. */
export function getContract(name: string, version?: number): ContractDefinition {
  const ref = version === undefined ? parseContractRef(name) : { name, version };
  const def = byRef.get(`${ref.name}@${ref.version}`);
  if (!def) {
    const known = contracts.map((c) => `${c.name}@${c.version}`).join(", ");
    throw contractError("KEEL_ERR_CONTRACT_UNKNOWN", `unknown contract \`${ref.name}@${ref.version}\`; known: ${known}`);
  }
  return def;
}

function resolve(ref: string | ContractRef): ContractDefinition {
  return typeof ref === "string" ? getContract(ref) : getContract(ref.name, ref.version);
}

/** The published JSON Schema of a contract (cached, so its validator is compiled once). */
export function contractSchema(ref: string | ContractRef): Record<string, unknown> {
  const def = resolve(ref);
  let schema = published.get(def);
  if (!schema) {
    schema = publishedSchema(def);
    published.set(def, schema);
  }
  return schema;
}

/**
 * Validate a payload against a contract. Errors carry the JSON pointer of the offending value.
 *
 * @example
 * validate("status@2", { contract: "status", version: 2, status: "ok" });
 * // { valid: false, errors: [{ pointer: "/status", message: "must be equal to one of the allowed values" }, ...] }
 */
export function validate(ref: string | ContractRef, payload: unknown, options: ValidateOptions = {}): ValidationResult {
  return check(ref, payload, options).result;
}

/**
 * Validate and return the payload (in tolerant mode, the pruned copy). Throws
 * KEEL_ERR_CONTRACT_VIOLATION, with the pointer of the first problem, when invalid.
 */
export function assertValid<T = unknown>(ref: string | ContractRef, payload: unknown, options: ValidateOptions = {}): T {
  const { value, result } = check(ref, payload, options);
  if (!result.valid) {
    const def = resolve(ref);
    const list = result.errors.map((e) => `${e.pointer || "/"}: ${e.message}`).join("; ");
    throw contractError("KEEL_ERR_CONTRACT_VIOLATION", `payload is not a valid ${def.name}@${def.version}: ${list}`, {
      pointer: result.errors[0]?.pointer ?? "",
    });
  }
  return value as T;
}

function check(ref: string | ContractRef, payload: unknown, options: ValidateOptions): { value: unknown; result: ValidationResult } {
  const schema = contractSchema(ref);
  const fn = compileSchema(schema);
  const value = options.tolerant ? dropUnknownProperties(schema, structuredClone(payload)) : payload;
  const valid = fn(value) as boolean;
  return { value, result: { valid, errors: valid ? [] : dedupe(toIssues(narrowUnionErrors(fn.errors ?? []))) } };
}

type Schema = Record<string, unknown>;

/**
 * Remove, in place, every property a closed part of `schema` does not know, following
 * `properties`, `patternProperties`, `additionalProperties`, `items`/`prefixItems` and
 * unions. A union branch is chosen by trying each on its own copy: the first one the
 * pruned value satisfies wins; when none does, the value is left as it is so the real
 * violation is reported.
 */
export function dropUnknownProperties(schema: unknown, value: unknown): unknown {
  if (!isRecord(schema)) return value;
  if (Array.isArray(value)) {
    const prefix = Array.isArray(schema.prefixItems) ? (schema.prefixItems as unknown[]) : [];
    for (let i = 0; i < value.length; i++) {
      value[i] = dropUnknownProperties(i < prefix.length ? prefix[i] : schema.items, value[i]);
    }
  } else if (isRecord(value)) {
    pruneObject(schema, value);
  }
  for (const key of ["anyOf", "oneOf"] as const) {
    const branches = schema[key];
    if (!Array.isArray(branches)) continue;
    for (const branch of branches as Schema[]) {
      const candidate = dropUnknownProperties(branch, structuredClone(value));
      if (compileSchema(branch)(candidate)) return candidate;
    }
  }
  if (Array.isArray(schema.allOf)) {
    for (const branch of schema.allOf as unknown[]) value = dropUnknownProperties(branch, value);
  }
  return value;
}

function pruneObject(schema: Schema, value: Record<string, unknown>): void {
  const properties = isRecord(schema.properties) ? schema.properties : {};
  const patterns = Object.entries(isRecord(schema.patternProperties) ? schema.patternProperties : {}).map(
    ([pattern, sub]) => [new RegExp(pattern, "u"), sub] as const,
  );
  const additional = schema.additionalProperties;
  for (const key of Object.keys(value)) {
    let known = false;
    if (Object.hasOwn(properties, key)) {
      known = true;
      value[key] = dropUnknownProperties(properties[key], value[key]);
    }
    for (const [regex, sub] of patterns) {
      if (regex.test(key)) {
        known = true;
        value[key] = dropUnknownProperties(sub, value[key]);
      }
    }
    if (known) continue;
    if (additional === false) delete value[key];
    else value[key] = dropUnknownProperties(additional, value[key]);
  }
}

function dedupe(issues: ValidationIssue[]): ValidationIssue[] {
  const seen = new Set<string>();
  return issues.filter((issue) => {
    const key = `${issue.pointer}\u0000${issue.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
