/**
 * The shape of a run's events inside its Redis stream. Each entry holds three fields:
 * `event` (the name), `data` (JSON) and `prev` (the id of the entry appended just
 * before it, `0-0` for the first), which lets a subscriber tell a real hole from a
 * cursor that merely points at a trimmed event (kernel/runs/stream-gap.ts).
 */
import type { LoggedEvent } from "../../kernel/runs/stream-gap.js";
import { ZERO_EVENT_ID } from "../../kernel/runs/stream-event-id.js";

/** What XRANGE / XREAD return per entry: the id and the flat field/value list. */
export type RawEntry = [id: string, fields: string[]];

export function encodeData(data: unknown): string {
  return JSON.stringify(data === undefined ? null : data);
}

/** An entry as a stream event with its predecessor's id. */
export function decodeEntry(runId: string, [id, fields]: RawEntry): LoggedEvent {
  let event = "";
  let data: unknown = null;
  let prev = ZERO_EVENT_ID;
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const value = fields[i + 1]!;
    if (fields[i] === "event") event = value;
    else if (fields[i] === "data") data = JSON.parse(value);
    else if (fields[i] === "prev") prev = value;
  }
  return { event: { id, runId, event, data }, prev };
}
