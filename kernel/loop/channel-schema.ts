import { compileSchema, toIssues } from "../../contracts/ajv.js";
import type { ResolvedChannel } from "../compose/types.js";
import { KeelError } from "../errors.js";

/** Reducers whose update is an item or a list of items (the channel's schema describes the list). */
function takesItems(channel: ResolvedChannel): boolean {
  return channel.reducer === "messages" || channel.reducer === "append" || channel.reducer === "append-set" || typeof channel.reducer === "object";
}

/**
 * Every written update is checked against the channel's `schema` (compiled once per schema):
 * the update, not the reduced value, so the cost follows what was written. A single item
 * written to a list channel is checked as a one-item list.
 */
export function assertChannelSchema(channel: ResolvedChannel, update: unknown, source: string): void {
  const validate = compileSchema(channel.schema);
  const value = takesItems(channel) && !Array.isArray(update) && (channel.schema as { type?: unknown }).type === "array" ? [update] : update;
  if (validate(value)) return;
  const issue = toIssues(validate.errors)[0] ?? { pointer: "", message: "does not match the schema" };
  throw new KeelError("KEEL_ERR_CHANNEL_SCHEMA", `${source} wrote \`${channel.name}\` that does not match its schema at \`${issue.pointer || "/"}\`: ${issue.message}`, { pointer: issue.pointer });
}
