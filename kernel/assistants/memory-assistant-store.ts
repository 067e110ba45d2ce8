import { KeelError } from "../errors.js";
import { assistantComparator, assistantMatches, metadataContains } from "./assistant-order.js";
import type { AssistantFilter, AssistantPatch, AssistantRecord, AssistantSearch, AssistantStore, AssistantVersionRecord } from "./types.js";

/** Values cross the store boundary as JSON, as they do in the SQL store. */
const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** The in-memory AssistantStore (tests, a server without a database). */
export class MemoryAssistantStore implements AssistantStore {
  private readonly assistants = new Map<string, AssistantRecord>();
  private readonly versions = new Map<string, AssistantVersionRecord[]>();

  async init(): Promise<void> {}
  async close(): Promise<void> {}

  async createAssistant(record: AssistantRecord): Promise<AssistantRecord> {
    if (this.assistants.has(record.assistantId)) throw new KeelError("KEEL_ERR_STORE_CONFLICT", `assistant \`${record.assistantId}\` already exists`);
    const stored = copy({ ...record, version: 1 });
    this.assistants.set(record.assistantId, stored);
    this.versions.set(record.assistantId, [versionOf(stored)]);
    return copy(stored);
  }

  async getAssistant(assistantId: string): Promise<AssistantRecord | null> {
    const found = this.assistants.get(assistantId);
    return found ? copy(found) : null;
  }

  async updateAssistant(assistantId: string, patch: AssistantPatch, now: string): Promise<AssistantRecord | null> {
    const current = this.assistants.get(assistantId);
    const versions = this.versions.get(assistantId);
    if (!current || !versions) return null;
    const next = applyPatch(current, patch, Math.max(...versions.map((v) => v.version)) + 1, now);
    versions.push(versionOf(next));
    this.assistants.set(assistantId, next);
    return copy(next);
  }

  async setLatestVersion(assistantId: string, version: number, now: string): Promise<AssistantRecord | null> {
    const current = this.assistants.get(assistantId);
    const chosen = this.versions.get(assistantId)?.find((v) => v.version === version);
    if (!current || !chosen) return null;
    const next = fromVersion(current, chosen, now);
    this.assistants.set(assistantId, next);
    return copy(next);
  }

  async deleteAssistant(assistantId: string): Promise<boolean> {
    this.versions.delete(assistantId);
    return this.assistants.delete(assistantId);
  }

  async searchAssistants(search: AssistantSearch): Promise<AssistantRecord[]> {
    const found = this.matching(search).sort(assistantComparator(search.sortBy, search.sortOrder));
    return copy(found.slice(search.offset, search.offset + search.limit));
  }

  async countAssistants(filter: AssistantFilter): Promise<number> {
    return this.matching(filter).length;
  }

  async listVersions(assistantId: string, options: { metadata?: Record<string, unknown>; limit: number; offset: number }): Promise<AssistantVersionRecord[]> {
    const versions = (this.versions.get(assistantId) ?? []).filter((v) => metadataContains(v.metadata, options.metadata));
    return copy([...versions].sort((a, b) => b.version - a.version).slice(options.offset, options.offset + options.limit));
  }

  private matching(filter: AssistantFilter): AssistantRecord[] {
    return [...this.assistants.values()].filter((a) => a.owner === filter.owner && assistantMatches(a, filter));
  }
}

/** A version's fields of an assistant record. */
export function versionOf(record: AssistantRecord, createdAt = record.updatedAt): AssistantVersionRecord {
  const { owner: _owner, updatedAt: _updated, ...fields } = record;
  return { ...fields, createdAt };
}

/** The patched assistant as version `version`: absent fields kept, metadata merged (LangGraph's PATCH). */
export function applyPatch(current: AssistantRecord, patch: AssistantPatch, version: number, now: string): AssistantRecord {
  return {
    ...current,
    ...(patch.graphId !== undefined ? { graphId: patch.graphId } : {}),
    ...(patch.name !== undefined ? { name: patch.name } : {}),
    ...(patch.description !== undefined ? { description: patch.description } : {}),
    ...(patch.config !== undefined ? { config: patch.config } : {}),
    ...(patch.context !== undefined ? { context: patch.context } : {}),
    metadata: patch.metadata !== undefined ? { ...current.metadata, ...patch.metadata } : current.metadata,
    version,
    updatedAt: now,
  };
}

/** The assistant with `version`'s fields current again (its creation time and owner kept). */
export function fromVersion(current: AssistantRecord, version: AssistantVersionRecord, now: string): AssistantRecord {
  return { ...version, owner: current.owner, createdAt: current.createdAt, updatedAt: now };
}
