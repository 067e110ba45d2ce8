import { canonicalJson, sha256Hex } from "../../kernel/hashing.js";

/** Arguments that say what a call is about; the rest (limits, flags) is noise for repeat detection. */
export const SALIENT_ARGS = ["path", "url", "query", "command", "pattern"] as const;
/** `read_file` calls whose `startLine` falls in the same 200-line range count as the same read. */
export const READ_BUCKET_LINES = 200;
/**
 * Edits of one file with different payloads are progress, not a loop: these tools are keyed
 * by their full arguments even though they have a `path`.
 */
const CONTENT_SENSITIVE = new Set(["write_file", "str_replace"]);

export interface CallLike {
  name: string;
  args?: unknown;
}

function argsObject(args: unknown): Record<string, unknown> {
  return typeof args === "object" && args !== null && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
}

function startLineOf(value: unknown): number {
  const n = typeof value === "string" ? Number(value) : value;
  return typeof n === "number" && Number.isFinite(n) && n >= 1 ? Math.floor(n) : 1;
}

/** The stable key of one tool call: `name:` + canonical JSON of its salient arguments. */
export function callKey(call: CallLike): string {
  const args = argsObject(call.args);
  if (call.name === "read_file") {
    const bucket = Math.floor((startLineOf(args.startLine) - 1) / READ_BUCKET_LINES);
    const lines = `${bucket * READ_BUCKET_LINES + 1}-${(bucket + 1) * READ_BUCKET_LINES}`;
    return `${call.name}:${canonicalJson({ lines, path: args.path ?? null })}`;
  }
  if (!CONTENT_SENSITIVE.has(call.name)) {
    const salient: Record<string, unknown> = {};
    for (const field of SALIENT_ARGS) if (args[field] !== undefined && args[field] !== null) salient[field] = args[field];
    if (Object.keys(salient).length > 0) return `${call.name}:${canonicalJson(salient)}`;
  }
  return `${call.name}:${canonicalJson(args)}`;
}

/** The sorted keys of a message's tool calls: the same calls in any order give the same list. */
export function callKeys(calls: readonly CallLike[]): string[] {
  return calls.map(callKey).sort();
}

/** Order-independent hash of the set of tool calls of one assistant message (16 hex). */
export function hashToolCalls(calls: readonly CallLike[]): string {
  return sha256Hex(callKeys(calls).join("\n")).slice(0, 16);
}

/** Human-readable names of the calls for warnings and stop details, capped at `maxChars`. */
export function describeCalls(calls: readonly CallLike[], maxChars = 300): string {
  const text = callKeys(calls).join(", ");
  return text.length > maxChars ? `${text.slice(0, maxChars - 1)}…` : text;
}
