/**
 * The assistants' tables (kernel/assistants): the current version of each user assistant,
 * and every version it had. JSON values are `text` holding JSON, as in the other tables.
 */
import { EntitySchema } from "@mikro-orm/core";

export const ASSISTANTS_TABLE = "keel_assistants";
export const ASSISTANT_VERSIONS_TABLE = "keel_assistant_versions";

export interface AssistantRow {
  assistantId: string;
  owner: string;
  graphId: string;
  version: number;
  name: string;
  description?: string | null;
  config: string;
  context: string;
  metadata: string;
  createdAt: string;
  updatedAt: string;
}

export interface AssistantVersionRow {
  assistantId: string;
  version: number;
  graphId: string;
  name: string;
  description?: string | null;
  config: string;
  context: string;
  metadata: string;
  createdAt: string;
}

export const AssistantEntity = new EntitySchema<AssistantRow>({
  name: "KeelAssistant",
  tableName: ASSISTANTS_TABLE,
  properties: {
    assistantId: { type: "text", primary: true },
    owner: { type: "text", index: "keel_assistants_owner_index" },
    graphId: { type: "text" },
    version: { type: "integer" },
    name: { type: "text" },
    description: { type: "text", nullable: true },
    config: { type: "text" },
    context: { type: "text" },
    metadata: { type: "text" },
    createdAt: { type: "text" },
    updatedAt: { type: "text" },
  },
});

/** One row per version; the composite key makes two writers of the same next version collide (one retries). */
export const AssistantVersionEntity = new EntitySchema<AssistantVersionRow>({
  name: "KeelAssistantVersion",
  tableName: ASSISTANT_VERSIONS_TABLE,
  properties: {
    assistantId: { type: "text", primary: true },
    version: { type: "integer", primary: true },
    graphId: { type: "text" },
    name: { type: "text" },
    description: { type: "text", nullable: true },
    config: { type: "text" },
    context: { type: "text" },
    metadata: { type: "text" },
    createdAt: { type: "text" },
  },
});
