/**
 * Stream event ids `<ms>-<seq>` (stream-event@1, the SSE `id`, what `Last-Event-ID`
 * carries back). Both parts are unbounded decimal integers, as in Redis Streams (whose
 * entry ids are the same shape), so they compare numerically part by part, never as
 * strings: `"9-0" < "10-0"` and `"5-9" < "5-10"`.
 */
import { KeelError } from "../errors.js";

const EVENT_ID = /^(\d+)-(\d+)$/;

/** The id below every real one: the `prev` of a run's first event. Never assigned. */
export const ZERO_EVENT_ID = "0-0";

/** True for a well-formed `<ms>-<seq>` id (the stream-event@1 `id` pattern). */
export function isEventId(value: unknown): value is string {
  return typeof value === "string" && EVENT_ID.test(value);
}

/**
 * Throw `KEEL_ERR_STREAM_EVENT_ID_INVALID` unless `value` is a `<ms>-<seq>` id; `what`
 * names it in the message (e.g. "Last-Event-ID").
 */
export function assertEventId(value: unknown, what: string): asserts value is string {
  if (!isEventId(value)) {
    const shown = typeof value === "string" ? `\`${value.slice(0, 64)}\`` : String(typeof value);
    throw new KeelError("KEEL_ERR_STREAM_EVENT_ID_INVALID", `${what} ${shown} is not a stream event id; expected \`<ms>-<seq>\`, e.g. \`1718000000000-0\``);
  }
}

/** The `Last-Event-ID` that asks for a replay from the start (what `@langchain/langgraph-sdk`'s `useStream` sends). */
export const FROM_START_EVENT_ID = "-1";

/**
 * A subscription's cursor from a `Last-Event-ID`: absent or `-1` → null (from the
 * earliest retained event), a `<ms>-<seq>` id → itself; anything else throws
 * `KEEL_ERR_STREAM_EVENT_ID_INVALID`.
 */
export function readLastEventId(value: string | undefined): string | null {
  if (value === undefined || value === FROM_START_EVENT_ID) return null;
  if (!isEventId(value)) {
    throw new KeelError("KEEL_ERR_STREAM_EVENT_ID_INVALID", `Last-Event-ID \`${String(value).slice(0, 64)}\` is not a stream event id; expected \`<ms>-<seq>\` (e.g. \`1718000000000-0\`) or \`-1\` (from the start)`);
  }
  return value;
}

/** Compare two decimal digit strings as numbers (any length, leading zeros allowed). */
function compareDigits(a: string, b: string): number {
  const x = a.replace(/^0+(?=\d)/, "");
  const y = b.replace(/^0+(?=\d)/, "");
  if (x.length !== y.length) return x.length < y.length ? -1 : 1;
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * Order two event ids: negative when `a` comes first, 0 when equal, positive after.
 * Throws `KEEL_ERR_STREAM_EVENT_ID_INVALID` for a malformed id.
 *
 * @example
 * ["10-0", "9-1", "9-0"].sort(compareEventIds); // ["9-0", "9-1", "10-0"]
 */
export function compareEventIds(a: string, b: string): number {
  assertEventId(a, "event id");
  assertEventId(b, "event id");
  const [msA, seqA] = a.split("-") as [string, string];
  const [msB, seqB] = b.split("-") as [string, string];
  return compareDigits(msA, msB) || compareDigits(seqA, seqB);
}

/**
 * Assigns ids the way Redis does for `XADD *`: the clock's millisecond, and a sequence
 * that restarts at 0 each new millisecond. When the clock stands still or goes back,
 * the last millisecond is kept and the sequence goes on, so ids stay strictly increasing.
 */
export class EventIdSequence {
  private ms = 0;
  private seq = 0;

  next(nowMs: number): string {
    const now = Math.max(0, Math.floor(nowMs));
    if (now > this.ms) {
      this.ms = now;
      this.seq = 0;
    } else {
      // Also covers the very first id at ms 0: `0-0` is reserved (ZERO_EVENT_ID).
      this.seq++;
    }
    return `${this.ms}-${this.seq}`;
  }
}
