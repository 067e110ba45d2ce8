/**
 * The crons table (`SqlCronStore`, cron-sql.ts). JSON values are text (as the store's other
 * tables), timestamps ISO-8601 UTC text (they order as text), `enabled` an integer 0/1 (the
 * same binding on both dialects). The tick's claim is one conditional UPDATE of one row.
 */
import { EntitySchema } from "@mikro-orm/core";

export const CRONS_TABLE = "keel_crons";

export interface CronRow {
  cronId: string;
  owner: string;
  assistantId: string;
  threadId: string | null;
  schedule: string;
  timezone: string | null;
  endTime: string | null;
  enabled: number;
  onRunCompleted: string | null;
  payload: string;
  request: string;
  strategy: string;
  metadata: string;
  nextRunAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export const CronEntity = new EntitySchema<CronRow>({
  name: "KeelCron",
  tableName: CRONS_TABLE,
  properties: {
    cronId: { type: "text", primary: true },
    owner: { type: "text", index: "keel_crons_owner_index" },
    assistantId: { type: "text" },
    threadId: { type: "text", nullable: true },
    schedule: { type: "text" },
    timezone: { type: "text", nullable: true },
    endTime: { type: "text", nullable: true },
    enabled: { type: "integer" },
    onRunCompleted: { type: "text", nullable: true },
    payload: { type: "text" },
    request: { type: "text" },
    strategy: { type: "text" },
    metadata: { type: "text" },
    nextRunAt: { type: "text", nullable: true },
    createdAt: { type: "text" },
    updatedAt: { type: "text" },
  },
  indexes: [{ name: "keel_crons_due_index", properties: ["enabled", "nextRunAt"] }],
});
