import { describe, expect, it } from "vitest";
import {
  DEFAULT_PROGRESS_OPTIONS,
  effectiveEntry,
  isAuthOrConfigError,
  observeResult,
  type ToolProgressEntry,
} from "../../../plugins/tool-progress/index.js";

const RUN = "run-1";
const error = (text = "`x.md` does not exist") => ({ text, isError: true });
const ok = (text: string) => ({ text, isError: false });
const page = (n: number) => ok(Array.from({ length: 20 }, (_, i) => `page${n}word${i}`).join(" "));

/** Fold results one by one; return each observation. */
function fold(results: Array<{ text: string; isError: boolean }>, start?: ToolProgressEntry, options = DEFAULT_PROGRESS_OPTIONS, runId = RUN) {
  let entry = start;
  return results.map((r) => {
    const seen = observeResult("read_file", entry, r, options, runId);
    entry = seen.entry;
    return seen;
  });
}

describe("observeResult", () => {
  it("warns from the 3rd consecutive error and blocks at the 5th", () => {
    const seen = fold([error(), error(), error(), error(), error()]);
    expect(seen.map((s) => [s.entry.status, s.entry.problems, s.action])).toEqual([
      ["active", 1, "none"],
      ["active", 2, "none"],
      ["warned", 3, "warn"],
      ["warned", 4, "warn"],
      ["blocked", 5, "block"],
    ]);
    expect(seen[4]!.entry.reason).toBe(
      "`read_file` has failed or repeated itself 5 times in a row (last: `x.md` does not exist); it is blocked for the rest of this run — change strategy or report what is missing",
    );
    expect(seen[4]!.entry.blockedRunId).toBe(RUN);
  });

  it("a good result resets to active", () => {
    const seen = fold([error(), error(), error(), page(1), error(), error()]);
    expect(seen.map((s) => s.entry.status)).toEqual(["active", "active", "warned", "active", "active", "active"]);
    expect(seen.at(-1)!.entry.problems).toBe(2);
    expect(seen[3]!.cause).toBeNull();
  });

  it("counts a success that repeats one of the last 3 results (Jaccard ≥ 0.8) as a problem", () => {
    const seen = fold([page(1), page(1), page(1), page(1), page(1), page(1)]);
    expect(seen.map((s) => s.cause)).toEqual([null, "repeat", "repeat", "repeat", "repeat", "repeat"]);
    expect(seen.at(-1)!.entry.status).toBe("blocked");
    expect(seen.at(-1)!.entry.reason).toContain("(last: the same result as before)");
  });

  it("compares with the last 3 results only", () => {
    const seen = fold([page(1), page(2), page(3), page(4), page(1), page(3)]);
    expect(seen.map((s) => s.cause)).toEqual([null, null, null, null, null, "repeat"]);
  });

  it("uses the similarity threshold: 16 of 20 shared words (0.667) is not a repeat at 0.8, but is at 0.6", () => {
    const a = ok(Array.from({ length: 20 }, (_, i) => `w${i}`).join(" "));
    const b = ok(Array.from({ length: 20 }, (_, i) => `w${i + 4}`).join(" "));
    expect(fold([a, b]).map((s) => s.cause)).toEqual([null, null]);
    expect(fold([a, b], undefined, { ...DEFAULT_PROGRESS_OPTIONS, similarity: 0.6 }).map((s) => s.cause)).toEqual([null, "repeat"]);
  });

  it("never compares results with fewer than 10 unique words", () => {
    const seen = fold(Array.from({ length: 6 }, () => ok("wrote 12 bytes to notes.md")));
    expect(seen.every((s) => s.cause === null && s.entry.status === "active")).toBe(true);
  });

  it("blocks an auth/config error at once", () => {
    const [seen] = fold([error("HTTP 401 Unauthorized: invalid api key")]);
    expect(seen!.cause).toBe("auth");
    expect(seen!.action).toBe("block");
    expect(seen!.entry.reason).toMatch(/^`read_file` failed with an authentication or configuration error \(HTTP 401 Unauthorized: invalid api key\)/);
  });

  it("honours warnAfter and blockAfter", () => {
    const seen = fold([error(), error(), error()], undefined, { warnAfter: 1, blockAfter: 3, similarity: 0.8 });
    expect(seen.map((s) => s.action)).toEqual(["warn", "warn", "block"]);
  });

  it("keeps at most 3 recent sketches", () => {
    const seen = fold([page(1), page(2), page(3), page(4), page(5)]);
    expect(seen.at(-1)!.entry.recent).toHaveLength(3);
  });
});

describe("effectiveEntry", () => {
  it("a block lasts for the run that set it; later runs start active with the recent results kept", () => {
    const blocked = fold([error(), error(), error(), error(), error()]).at(-1)!.entry;
    expect(effectiveEntry(blocked, RUN)).toBe(blocked);
    expect(effectiveEntry(blocked, "run-2")).toEqual({ status: "active", problems: 0, recent: blocked.recent });
  });
});

describe("isAuthOrConfigError", () => {
  it.each([
    "401 Unauthorized",
    "status 403",
    "request was unauthorised",
    "Forbidden",
    "Invalid API key",
    "invalid_api_key",
    "bash: ./run.sh: Permission denied",
    "missing configuration: SEARCH_API_URL",
    "Missing API key for tavily",
    "missing credentials",
  ])("matches %j", (text) => expect(isAuthOrConfigError(text)).toBe(true));

  it.each(["`x.md` does not exist", "line 4012: syntax error", "timeout after 30 s", "missing file"])("does not match %j", (text) =>
    expect(isAuthOrConfigError(text)).toBe(false),
  );
});
