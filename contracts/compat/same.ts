/** Whether two schema locations are the same schema: equal text, read alike, equal `$ref` targets. */
import { resolveRef } from "./doc.js";
import { canonical } from "./json.js";
import { isRecord } from "../plain-object.js";
import type { Ref } from "./types.js";

const nodeIds = new WeakMap<object, number>();
let nextNodeId = 1;

export function idOf(node: unknown): string {
  if (typeof node !== "object" || node === null) return String(node);
  let id = nodeIds.get(node);
  if (id === undefined) nodeIds.set(node, (id = nextNodeId++));
  return `#${id}`;
}

const sameCache = new Map<string, boolean>();

function refsIn(node: unknown, out: Set<string> = new Set()): Set<string> {
  if (Array.isArray(node)) node.forEach((n) => refsIn(n, out));
  else if (isRecord(node)) {
    for (const [key, value] of Object.entries(node)) {
      if (key === "$ref" && typeof value === "string") out.add(value);
      else if (key !== "enum" && key !== "const" && key !== "examples" && key !== "default") refsIn(value, out);
    }
  }
  return out;
}

/** Textually equal, read the same way, and every `$ref` inside resolves to equal schemas. */
export function sameSchema(o: Ref, n: Ref, seen: Set<string> = new Set()): boolean {
  const key = `${idOf(o.node)}|${idOf(n.node)}|${idOf(o.doc)}|${idOf(n.doc)}`;
  const hit = sameCache.get(key);
  if (hit !== undefined) return hit;
  if (seen.has(key)) return true;
  seen.add(key);
  let same = o.doc.legacy === n.doc.legacy && canonical(o.node) === canonical(n.node);
  for (const ref of same ? refsIn(o.node) : []) {
    const [to, tn] = [resolveRef(o.doc, ref), resolveRef(n.doc, ref)];
    if (!to && !tn) continue;
    if (!to || !tn || !sameSchema(to, tn, seen)) {
      same = false;
      break;
    }
  }
  if (sameCache.size > 20000) sameCache.clear();
  sameCache.set(key, same);
  return same;
}
