/** The `prev` that id continuity implies (plugins/stream-redis/continuity.ts), without Redis. */
import { describe, expect, it } from "vitest";
import { followsCursor } from "../../../kernel/runs/stream-gap.js";
import { continuityPrev, withContinuity } from "../../../plugins/stream-redis/continuity.js";

const entry = (id: string, prev: string) => ({ event: { id, runId: "r", event: "values", data: null }, prev });

describe("stream-redis id continuity", () => {
  it("accepts the next number whatever the stored prev says (a flush the subscriber lost nothing to)", () => {
    expect(continuityPrev("100-6", entry("900-7", "0-0"))).toBe("100-6");
    expect(continuityPrev("100-6", entry("100-7", "100-6"))).toBe("100-6");
  });

  it("reports trimmed events with the exact id of the newest one missed", () => {
    const prev = continuityPrev("100-3", entry("150-10", "140-9"));
    expect(prev).toBe("140-9");
    expect(followsCursor(prev, "100-3")).toBe(false);
  });

  it("reports a hole the stored prev cannot explain (flush, restart, failed writes) as `<ms>-<n-1>` of the delivered entry", () => {
    // Flushed: the first entry after the flush has prev 0-0 and number 7 after cursor 3.
    expect(continuityPrev("100-3", entry("900-7", "0-0"))).toBe("900-6");
    // Failed writes: the previous entry is the cursor itself, but numbers 4 and 5 are missing.
    expect(continuityPrev("100-3", entry("900-6", "100-3"))).toBe("900-5");
    // Restarted empty and numbered from 1 by a publisher that knew nothing: still after the cursor.
    const restarted = continuityPrev("100-3", entry("900-1", "0-0"));
    expect(restarted).toBe("900-0");
    expect(followsCursor(restarted, "100-3")).toBe(false);
    // Numbers beyond a double's exact range take the BigInt path.
    expect(continuityPrev("1-18446744073709551610", entry("2-18446744073709551615", "0-0"))).toBe("2-18446744073709551614");
  });

  it("the gap id resumes without a second gap; joining from the start accepts anything", () => {
    expect(continuityPrev("900-6", entry("900-7", "0-0"))).toBe("900-6");
    expect(continuityPrev(null, entry("900-7", "0-0"))).toBe("0-0");
  });

  it("checks a page entry by entry against the one before it", () => {
    const page = withContinuity([entry("100-4", "100-3"), entry("100-5", "100-4"), entry("200-9", "100-5")], "100-3");
    expect(page.map((e) => e.prev)).toEqual(["100-3", "100-4", "200-8"]);
  });
});
