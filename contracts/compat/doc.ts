import { child, parsePointer, valueAt } from "./json.js";
import { isRecord } from "../plain-object.js";
import type { Doc, Ref } from "./types.js";

const DRAFT_2019 = /2019-09/;
const DRAFT_2020 = /2020-12/;
/** Values that are data, not schemas: never look for `$id`s inside them. */
const DATA_KEYWORDS = new Set(["enum", "const", "examples", "default"]);

/**
 * Read a schema document. Without `$schema` it is read with both draft 2020-12 and
 * draft-07 keywords (`items` arrays, `additionalItems`, `dependencies`, `definitions`).
 * In every dialect the keywords next to a `$ref` apply too, as AJV (our validator)
 * applies them, though the draft-07 text says to ignore them.
 */
export function readDoc(root: unknown): Doc {
  const dialect = isRecord(root) && typeof root.$schema === "string" ? root.$schema : "";
  const doc: Doc = {
    root,
    legacy: !DRAFT_2020.test(dialect) || DRAFT_2019.test(dialect),
    ids: new Map(),
  };
  indexIds(doc, root, "#");
  return doc;
}

export function rootRef(doc: Doc): Ref {
  return { doc, node: doc.root, ptr: "#" };
}

function indexIds(doc: Doc, node: unknown, ptr: string): void {
  if (Array.isArray(node)) {
    node.forEach((item, i) => indexIds(doc, item, child(ptr, i)));
    return;
  }
  if (!isRecord(node)) return;
  const ref: Ref = { doc, node, ptr };
  if (typeof node.$id === "string") {
    if (node.$id.startsWith("#")) doc.ids.set(node.$id, ref);
    else doc.ids.set(node.$id.replace(/#$/, ""), ref);
  }
  if (typeof node.$anchor === "string") doc.ids.set(`#${node.$anchor}`, ref);
  for (const [key, value] of Object.entries(node)) {
    if (!DATA_KEYWORDS.has(key)) indexIds(doc, value, child(ptr, key));
  }
}

/** Resolve a `$ref` inside `doc`; undefined when it points outside the document. */
export function resolveRef(doc: Doc, ref: string): Ref | undefined {
  const hash = ref.indexOf("#");
  const base = hash < 0 ? ref : ref.slice(0, hash);
  const fragment = hash < 0 ? "" : ref.slice(hash + 1);
  let scope: Ref = rootRef(doc);
  if (base !== "") {
    const found = doc.ids.get(base);
    if (!found) return undefined;
    scope = found;
  }
  const tokens = parsePointer(fragment);
  if (tokens === undefined) return doc.ids.get(`#${fragment}`);
  const node = valueAt(scope.node, tokens);
  if (node === undefined) return undefined;
  return { doc, node, ptr: child(scope.ptr, ...tokens) };
}

/** A sub-location of `ref` (`sub(ref, "properties", "a")`), or undefined when absent. */
export function sub(ref: Ref, ...tokens: (string | number)[]): Ref | undefined {
  const node = valueAt(ref.node, tokens.map(String));
  return node === undefined ? undefined : { doc: ref.doc, node, ptr: child(ref.ptr, ...tokens) };
}
