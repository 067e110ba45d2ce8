/**
 * The long-term item store's table (`keel_store_items`, kernel/ports/item-store.ts): one
 * row per owner, namespace and key. `ns_path` is the namespace's labels each followed by
 * `.` (`memories.u1.`) — labels never contain `.`, so a namespace prefix is a string
 * prefix of the path and the labels come back by splitting it. The value is JSON text,
 * times ISO-8601 text (they order as text), `ttl_minutes` the item's TTL for refreshes.
 */
import { EntitySchema } from "@mikro-orm/core";

export const ITEMS_TABLE = "keel_store_items";

export interface ItemRow {
  owner: string;
  nsPath: string;
  itemKey: string;
  value: string;
  createdAt: string;
  updatedAt: string;
  ttlMinutes?: number | null;
  expiresAt?: string | null;
}

export const ItemEntity = new EntitySchema<ItemRow>({
  name: "KeelStoreItem",
  tableName: ITEMS_TABLE,
  properties: {
    owner: { type: "text", primary: true },
    nsPath: { type: "text", primary: true },
    itemKey: { type: "text", primary: true },
    value: { type: "text" },
    createdAt: { type: "text" },
    updatedAt: { type: "text" },
    ttlMinutes: { type: "double", nullable: true },
    expiresAt: { type: "text", nullable: true },
  },
  indexes: [{ name: "keel_store_items_expires_at_index", properties: ["expiresAt"] }],
});
