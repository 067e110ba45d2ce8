/**
 * Comparing one SDK call's answers from the two servers (README.md in this directory):
 * ids and timestamps are masked, then the two JSON values are walked together and every
 * difference is reported with its JSON pointer — a key only one side has, a different
 * type, or a different value. A case lists the differences it expects, each with the id of
 * its row in docs/http.md's differences table; anything else fails the case, and so does an expected
 * difference that no longer occurs (so the table stays true).
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** Keys whose string values are ids whatever their format (message and tool-call ids differ by design: each server makes its own). */
const ID_KEYS = new Set(["id", "tool_call_id", "toolCallId"]);

/** Every uuid → `<id>`, every ISO-8601 timestamp → `<time>`, the value of an `id` / `tool_call_id` / `toolCallId` key → `<id>`, recursively; ids inside strings (paths) too. */
export function mask(value: unknown): unknown {
  if (typeof value === "string") {
    if (UUID.test(value)) return "<id>";
    if (ISO_TIME.test(value)) return "<time>";
    return value.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, "<id>");
  }
  if (Array.isArray(value)) return value.map(mask);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, ID_KEYS.has(k) && typeof v === "string" ? "<id>" : mask(v)]));
  }
  return value;
}

export type DifferenceKind = "keel-only" | "langgraph-only" | "type" | "value";

export interface Difference {
  pointer: string;
  kind: DifferenceKind;
  keel?: unknown;
  langgraph?: unknown;
}

const typeOf = (v: unknown): string => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);
const escape = (key: string) => key.replace(/~/g, "~0").replace(/\//g, "~1");

/** Walk both values; arrays are compared index by index (the shorter one's missing items are `*-only`). */
export function diff(keel: unknown, langgraph: unknown, pointer = ""): Difference[] {
  if (typeOf(keel) !== typeOf(langgraph)) return [{ pointer, kind: "type", keel, langgraph }];
  if (Array.isArray(keel) && Array.isArray(langgraph)) {
    const out: Difference[] = [];
    for (let i = 0; i < Math.max(keel.length, langgraph.length); i++) {
      if (i >= langgraph.length) out.push({ pointer: `${pointer}/${i}`, kind: "keel-only", keel: keel[i] });
      else if (i >= keel.length) out.push({ pointer: `${pointer}/${i}`, kind: "langgraph-only", langgraph: langgraph[i] });
      else out.push(...diff(keel[i], langgraph[i], `${pointer}/${i}`));
    }
    return out;
  }
  if (keel !== null && typeof keel === "object") {
    const a = keel as Record<string, unknown>;
    const b = langgraph as Record<string, unknown>;
    const out: Difference[] = [];
    for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const at = `${pointer}/${escape(key)}`;
      if (!(key in b)) out.push({ pointer: at, kind: "keel-only", keel: a[key] });
      else if (!(key in a)) out.push({ pointer: at, kind: "langgraph-only", langgraph: b[key] });
      else out.push(...diff(a[key], b[key], at));
    }
    return out;
  }
  return Object.is(keel, langgraph) ? [] : [{ pointer, kind: "value", keel, langgraph }];
}

/**
 * An expected difference: a pointer pattern (`*` matches one segment, a trailing `/**` any
 * number of segments below) and the id of the differences row that explains it. A difference under
 * a matched pointer is covered, so one entry can stand for a whole subtree (e.g. `/outcome`).
 */
export interface ExpectedDifference {
  pointer: string;
  id: string;
}

function matches(pattern: string, pointer: string): boolean {
  const p = pattern.split("/");
  const q = pointer.split("/");
  const deep = p.at(-1) === "**";
  if (deep) p.pop();
  if (deep ? q.length < p.length : q.length !== p.length) return false;
  return p.every((segment, i) => segment === "*" || segment === q[i]);
}

export interface Verdict {
  /** Differences no expectation covers. */
  unexpected: Difference[];
  /** Expectations no difference matched (the difference is gone: update the row in docs/http.md and the case). */
  stale: ExpectedDifference[];
}

export function judge(differences: readonly Difference[], expected: readonly ExpectedDifference[]): Verdict {
  const used = new Set<ExpectedDifference>();
  const unexpected: Difference[] = [];
  for (const d of differences) {
    const hit = expected.filter((e) => matches(e.pointer, d.pointer) || matches(`${e.pointer}/**`, d.pointer));
    if (hit.length === 0) unexpected.push(d);
    for (const e of hit) used.add(e);
  }
  return { unexpected, stale: expected.filter((e) => !used.has(e)) };
}
