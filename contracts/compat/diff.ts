import { contractError } from "../errors.js";
import type { SchemaChange, SchemaDiff } from "./codes.js";
import { Checker } from "./compare.js";
import { readDoc, rootRef } from "./doc.js";
import { isRecord } from "../plain-object.js";
import type { RawChange, Tri } from "./types.js";
import { and } from "./types.js";

/** Several atoms can report the same keyword change: keep one, breaking a direction if any did. */
function merge(changes: RawChange[]): RawChange[] {
  const byKey = new Map<string, RawChange>();
  for (const c of changes) {
    const key = `${c.code}\u0000${c.path}\u0000${c.message}`;
    const seen = byKey.get(key);
    if (!seen) byKey.set(key, { ...c });
    else {
      seen.backward = and(seen.backward, c.backward);
      seen.forward = and(seen.forward, c.forward);
    }
  }
  return [...byKey.values()];
}

function publish(c: RawChange): SchemaChange {
  const undecided = c.backward === "unknown" || c.forward === "unknown";
  const dirs = [c.backward === "unknown" ? "backward" : "", c.forward === "unknown" ? "forward" : ""].filter(Boolean).join(" and ");
  return {
    code: undecided && c.code !== "UNDECIDABLE" ? "UNDECIDABLE" : c.code,
    path: c.path,
    backward: c.backward === "yes",
    forward: c.forward === "yes",
    message: undecided && c.code !== "UNDECIDABLE" ? `${c.code}: ${c.message} (cannot decide ${dirs}; counted as incompatible)` : c.message,
  };
}

/**
 * Compare two JSON Schemas by the instances they accept. `backward`: every instance
 * valid under `old` is valid under `next`; `forward`: the reverse; `full`: both. Each
 * change says whether it alone keeps each direction. Whatever the checker cannot
 * decide is reported as `UNDECIDABLE` and counted as incompatible, never compatible.
 *
 * @example
 * diffSchemas({ type: "string", maxLength: 5 }, { type: "string", maxLength: 10 });
 * // { backward: true, forward: false, full: false,
 * //   changes: [{ code: "MAX_LENGTH_INCREASED", path: "#/maxLength", backward: true, forward: false, ... }] }
 */
export function diffSchemas(old: unknown, next: unknown): SchemaDiff {
  for (const [name, schema] of [
    ["old", old],
    ["new", next],
  ] as const) {
    if (!isRecord(schema) && typeof schema !== "boolean") {
      throw contractError("KEEL_ERR_CONTRACTS_NOT_A_SCHEMA", `the ${name} schema is ${Array.isArray(schema) ? "an array" : `\`${JSON.stringify(schema)}\``}; a JSON Schema is an object or a boolean`);
    }
  }
  const checker = new Checker();
  // Private copies: the checker caches by object identity, so a caller's later edits must not reach it.
  const copy = (schema: unknown) => JSON.parse(JSON.stringify(schema)) as unknown;
  const result = checker.compareRefs(rootRef(readDoc(copy(old))), rootRef(readDoc(copy(next))), 0);
  const changes = merge(result.changes);
  for (const dir of ["backward", "forward"] as const) {
    // A verdict short of "yes" always has a change to show for it.
    if (result[dir] !== "yes" && changes.every((c) => c[dir] === "yes")) {
      const flags = { backward: "yes" as Tri, forward: "yes" as Tri, [dir]: result[dir] };
      changes.push({ code: "UNDECIDABLE", path: "#", ...flags, message: `cannot show the ${dir} direction holds` });
    }
  }
  const verdict = (dir: "backward" | "forward"): boolean => {
    const all: Tri = and(result[dir], ...changes.map((c) => c[dir]));
    return all === "yes";
  };
  const backward = verdict("backward");
  const forward = verdict("forward");
  return { changes: changes.map(publish), backward, forward, full: backward && forward };
}
