/**
 * The shape of a run's events inside its Redis stream. Each entry holds `event` (the
 * name), `data` (JSON), `prev` (the id of the entry appended just before it, `0-0` for
 * the first) and, when the publisher gave one, `epoch` (the run's lease epoch). The id is
 * `<ms>-<n>`, `n` the event's number in the run (append-script.ts, continuity.ts).
 */
import type { LoggedEvent } from "../../kernel/runs/stream-gap.js";
import { ZERO_EVENT_ID } from "../../kernel/runs/stream-event-id.js";

/** What XRANGE / XREAD return per entry: the id and the flat field/value list. */
export type RawEntry = [id: string, fields: string[]];

export function encodeData(data: unknown): string {
  return JSON.stringify(data === undefined ? null : data);
}

/** An entry as a stream event with its predecessor's id (fields in any order; unknown ones ignored). */
export function decodeEntry(runId: string, [id, fields]: RawEntry): LoggedEvent {
  let event = "";
  let data: unknown = null;
  let prev = ZERO_EVENT_ID;
  let epoch: number | undefined;
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const value = fields[i + 1]!;
    if (fields[i] === "event") event = value;
    else if (fields[i] === "data") data = JSON.parse(value);
    else if (fields[i] === "prev") prev = value;
    else if (fields[i] === "epoch" && value !== "") epoch = Number(value);
  }
  return { event: { id, runId, event, data, ...(epoch === undefined ? {} : { epoch }) }, prev };
}

/** The run's first `metadata` event from its hash (metadataKey), or null when there is none. */
export function decodeMetadata(runId: string, hash: Record<string, string>): LoggedEvent | null {
  if (hash.id === undefined || hash.data === undefined) return null;
  return decodeEntry(runId, [hash.id, ["event", "metadata", "data", hash.data, "prev", hash.prev ?? ZERO_EVENT_ID, "epoch", hash.epoch ?? ""]]);
}
