import { isDeepStrictEqual } from "node:util";
import type { AssistantFilter, AssistantRecord, AssistantSortField, AssistantVersionRecord } from "./types.js";

/** Every key of `filter` equal (as JSON data) to the same key of `metadata`. */
export function metadataContains(metadata: Record<string, unknown>, filter: Record<string, unknown> | undefined): boolean {
  if (!filter) return true;
  return Object.entries(filter).every(([key, value]) => value === undefined || isDeepStrictEqual(metadata[key], value));
}

/** The search filter, without the owner (the caller decides whose assistants are candidates). */
export function assistantMatches(assistant: AssistantVersionRecord, filter: Omit<AssistantFilter, "owner">): boolean {
  if (filter.graphId !== undefined && assistant.graphId !== filter.graphId) return false;
  if (filter.name !== undefined && !assistant.name.toLowerCase().includes(filter.name.toLowerCase())) return false;
  return metadataContains(assistant.metadata, filter.metadata);
}

const SORT_KEYS: Record<AssistantSortField, (a: AssistantRecord) => string> = {
  assistant_id: (a) => a.assistantId,
  graph_id: (a) => a.graphId,
  created_at: (a) => a.createdAt,
  updated_at: (a) => a.updatedAt,
  name: (a) => a.name,
};

/**
 * The order of a search: the field (ISO timestamps order as text), ties by assistant id,
 * both in `order`. `tieById: false` leaves ties to the caller (a stable sort keeps their order).
 */
export function assistantComparator(sortBy: AssistantSortField, order: "asc" | "desc", options: { tieById?: boolean } = {}): (a: AssistantRecord, b: AssistantRecord) => number {
  const key = SORT_KEYS[sortBy];
  const sign = order === "asc" ? 1 : -1;
  const tieById = options.tieById ?? true;
  return (a, b) => {
    const [x, y] = [key(a), key(b)];
    if (x !== y) return x < y ? -sign : sign;
    if (!tieById || a.assistantId === b.assistantId) return 0;
    return a.assistantId < b.assistantId ? -sign : sign;
  };
}
