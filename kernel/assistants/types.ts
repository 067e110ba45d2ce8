/**
 * User assistants (kernel/assistants/README.md): a stack (`graphId`) plus options
 * (`context`: plugin options, model, turn limit; LangGraph's `config`), versioned and
 * owned by the user who created it. The built-in stacks are system assistants; they are
 * not stored here (the gateway lists them beside the stored ones).
 */

/** The fields every version of an assistant has. */
export interface AssistantVersionRecord {
  assistantId: string;
  /** The stack the assistant runs (LangGraph's `graph_id`). */
  graphId: string;
  version: number;
  name: string;
  description: string | null;
  /** LangGraph's RunnableConfig fields (`configurable`, `recursion_limit`, `tags`). */
  config: Record<string, unknown>;
  /** `{ plugins?: { <plugin>: options }, model?, maxTurns? }` plus whatever else a caller stores. */
  context: Record<string, unknown>;
  metadata: Record<string, unknown>;
  /** When this version was written (ISO-8601). */
  createdAt: string;
}

/** The assistant as it is now: its current version's fields plus its owner and timestamps. */
export interface AssistantRecord extends AssistantVersionRecord {
  owner: string;
  /** When the assistant was first created (`createdAt` of version 1). */
  createdAt: string;
  updatedAt: string;
}

export type AssistantSortField = "assistant_id" | "graph_id" | "created_at" | "updated_at" | "name";

export interface AssistantFilter {
  owner: string;
  graphId?: string;
  /** Case-insensitive substring of the name. */
  name?: string;
  /** Every key equal (as JSON) to the assistant's metadata key. */
  metadata?: Record<string, unknown>;
}

export interface AssistantSearch extends AssistantFilter {
  sortBy: AssistantSortField;
  sortOrder: "asc" | "desc";
  limit: number;
  offset: number;
}

/** What an update may change; absent fields keep their current value, `metadata` is merged. */
export type AssistantPatch = Partial<Pick<AssistantVersionRecord, "graphId" | "name" | "description" | "config" | "context" | "metadata">>;

/**
 * Persistence of user assistants and their versions. Every read returns a copy; values
 * cross the boundary as JSON. Implementations: `MemoryAssistantStore` (here) and
 * store-sql's `SqlAssistantStore` (SQLite, PostgreSQL).
 */
export interface AssistantStore {
  /** Create tables (idempotent). */
  init(): Promise<void>;
  close(): Promise<void>;
  /** Insert version 1. An existing id throws `KEEL_ERR_STORE_CONFLICT`. */
  createAssistant(record: AssistantRecord): Promise<AssistantRecord>;
  getAssistant(assistantId: string): Promise<AssistantRecord | null>;
  /** Write a new version (highest + 1) with the patch applied and make it current; null when the assistant does not exist. */
  updateAssistant(assistantId: string, patch: AssistantPatch, now: string): Promise<AssistantRecord | null>;
  /** Make `version` current again (its fields become the assistant's); null when the assistant or that version does not exist. */
  setLatestVersion(assistantId: string, version: number, now: string): Promise<AssistantRecord | null>;
  /** Remove the assistant and its versions; false when it did not exist. */
  deleteAssistant(assistantId: string): Promise<boolean>;
  /** The owner's assistants matching the filter, sorted (ties by id), paged. */
  searchAssistants(search: AssistantSearch): Promise<AssistantRecord[]>;
  countAssistants(filter: AssistantFilter): Promise<number>;
  /** The assistant's versions, newest first, optionally those whose metadata matches. */
  listVersions(assistantId: string, options: { metadata?: Record<string, unknown>; limit: number; offset: number }): Promise<AssistantVersionRecord[]>;
}
