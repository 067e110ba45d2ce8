import { describe, expect, it } from "vitest";
import { DEFAULT_ACCEPTANCE_OPTIONS, checkTestsPassed, outputShapes, type BashRunEvidence } from "../../../plugins/acceptance/index.js";

const options = { ...DEFAULT_ACCEPTANCE_OPTIONS };

function run(command: string, outputTail: string, exitCode: number | null = 0, extra: Partial<BashRunEvidence> = {}): BashRunEvidence {
  return { command, commandTruncated: false, exitCode, outputTail, truncated: false, timedOut: false, persistentShell: false, at: "2026-01-01T00:00:00.000Z", toolCallId: "c", ...extra };
}

type Verdict = "holds" | "does not hold" | "UNVERIFIED";
function label(outcome: { checked: boolean; holds: boolean }): Verdict {
  return !outcome.checked ? "UNVERIFIED" : outcome.holds ? "holds" : "does not hold";
}

describe("outputShapes", () => {
  it.each([
    ["Tests  5 passed (5)", { pass: "5 passed" }],
    ["Ran 4 tests in 0.01s\n\nOK\n", { pass: "OK" }],
    ["ran fine\nok\n", { pass: "ok" }],
    ["test result: ok. 3 passed; 0 failed", { pass: "3 passed" }],
    ["All tests passed!", { pass: "All tests passed" }],
    ["Tests  0 passed", { zero: "0 passed" }],
    ["Ran 0 tests in 0.000s\n\nOK", { pass: "OK", zero: "Ran 0 tests" }],
    ["?   pkg [no test files]", { zero: "no test files" }],
    ["testing: warning: no tests to run", { zero: "no tests to run" }],
    ["Tests  2 failed | 3 passed", { pass: "3 passed", fail: "2 failed" }],
    ["1 error", { fail: "1 error" }],
    ["FAILED (failures=1)", { fail: "FAILED" }],
    ["test result: FAILED. 1 passed; 1 failed", { pass: "1 passed", fail: "1 failed" }],
    ["FAIL src/a.test.ts", { fail: "FAIL" }],
    ["10 passed", { pass: "10 passed" }],
    ["0 failed, 0 errors", {}],
    ["compiled fine", {}],
  ])("%j → %j", (tail, shapes) => {
    expect(outputShapes(tail)).toEqual(shapes);
  });
});

describe("checkTestsPassed", () => {
  it.each<[string, BashRunEvidence[], Verdict, string]>([
    ["pass shape, exit 0", [run("npm test", "Tests  5 passed (5)\n")], "holds", "exit 0; output shows `5 passed`"],
    ["zero shape", [run("npm test", "Tests  0 passed\n")], "UNVERIFIED", "exit 0 but zero tests ran: `0 passed`"],
    ["zero and pass shapes", [run("npm test", "Ran 0 tests in 0.0s\nOK")], "UNVERIFIED", "zero tests ran"],
    ["no shape", [run("npm test", "done\n")], "UNVERIFIED", "exit 0 but the output tail shows no test summary"],
    ["fail shape with exit 0", [run("npm test", "3 passed\n1 failed\n")], "does not hold", "exit 0 but the output shows a failure: `1 failed`"],
    ["fail and zero shapes", [run("npm test", "0 passed\nFAIL x.test.ts\n")], "does not hold", "a failure: `FAIL`"],
    ["non-zero exit", [run("npm test", "Tests  1 failed | 4 passed\n", 1)], "does not hold", "exit code 1; output shows `1 failed`"],
    ["non-zero exit with a pass shape", [run("npm test", "5 passed\n", 2)], "does not hold", "exit code 2"],
    ["timed out", [run("npm test", "", null, { timedOut: true })], "does not hold", "timed out"],
    ["killed", [run("npm test", "", null)], "does not hold", "was killed (no exit status)"],
    ["truncated command record", [run("npm test", "5 passed", 0, { commandTruncated: true })], "UNVERIFIED", "has a truncated command record"],
    ["persistent shell", [run("npm test", "5 passed", 0, { persistentShell: true })], "UNVERIFIED", "ran in a persistent shell"],
    ["cd x && npm test", [run("cd x && npm test", "5 passed")], "holds", "exit 0; output shows `5 passed`"],
    ["FOO=1 npm test", [run("FOO=1 npm test", "5 passed")], "UNVERIFIED", "cannot prove it: extra env assignment `FOO=1`"],
    ["npm test > out.txt", [run("npm test > out.txt", "")], "UNVERIFIED", "cannot prove it: output redirection `>out.txt`"],
    ["echo npm test", [run("echo npm test", "npm test\n5 passed")], "UNVERIFIED", "no recorded bash run of `npm test` among the last 20 runs"],
    ["echo 5 passed; npm test", [run("echo 5 passed; npm test", "5 passed\nno tests")], "UNVERIFIED", "a preceding segment may print"],
    ["npm test || true", [run("npm test || true", "1 failed")], "UNVERIFIED", "cannot prove it: `||` control flow"],
    ["$(npm test)", [run("$(npm test)", "")], "UNVERIFIED", "command substitution"],
    ["no run at all", [], "UNVERIFIED", "no recorded bash run of `npm test` among the last 20 runs"],
  ])("%s", (_name, runs, verdict, detail) => {
    const outcome = checkTestsPassed("npm test", runs, options);
    expect(label(outcome)).toBe(verdict);
    expect(outcome.detail).toContain(detail);
  });

  it("lets the latest matching run decide, in both directions", () => {
    const failedThenPassed = [run("npm test", "1 failed", 1), run("ls", "a\n"), run("npm test", "6 passed")];
    expect(label(checkTestsPassed("npm test", failedThenPassed, options))).toBe("holds");
    const passedThenFailed = [run("npm test", "6 passed"), run("npm test", "1 failed", 1), run("echo npm test", "npm test")];
    expect(checkTestsPassed("npm test", passedThenFailed, options)).toEqual({ checked: true, holds: false, detail: "exit code 1; output shows `1 failed`" });
    const passedThenUnprovable = [run("npm test", "6 passed"), run("npm test || true", "6 passed")];
    expect(label(checkTestsPassed("npm test", passedThenUnprovable, options))).toBe("UNVERIFIED");
  });

  it("looks only at the last evidenceWindow runs", () => {
    const runs = [run("npm test", "5 passed"), ...Array.from({ length: 20 }, (_, i) => run(`ls ${i}`, ""))];
    expect(checkTestsPassed("npm test", runs, options).detail).toBe("no recorded bash run of `npm test` among the last 20 runs");
    expect(label(checkTestsPassed("npm test", runs, { ...options, evidenceWindow: 21 }))).toBe("holds");
  });

  it("searches only the last outputChars characters of the tail", () => {
    const tail = `5 passed\n${"x".repeat(1000)}`;
    expect(label(checkTestsPassed("npm test", [run("npm test", tail)], options))).toBe("UNVERIFIED");
    expect(label(checkTestsPassed("npm test", [run("npm test", tail)], { ...options, outputChars: 1010 }))).toBe("holds");
  });

  it("treats a record longer than commandChars as truncated", () => {
    const long = `cd ${"d".repeat(40)} && npm test`;
    expect(label(checkTestsPassed("npm test", [run(long, "5 passed")], options))).toBe("holds");
    const outcome = checkTestsPassed("npm test", [run(long, "5 passed")], { ...options, commandChars: 30 });
    // Cut to 30 characters the record no longer shows `npm test`: it is not a run of it.
    expect(outcome.detail).toBe("no recorded bash run of `npm test` among the last 20 runs");
    const fits = `npm test ${"#".repeat(40)}`;
    expect(checkTestsPassed("npm test", [run(fits, "5 passed")], { ...options, commandChars: 30 }).detail).toContain("truncated command record");
  });

  it("refuses a criterion command that is not plain", () => {
    const outcome = checkTestsPassed("npm test || true", [run("npm test || true", "5 passed")], options);
    expect(outcome).toEqual({ checked: false, holds: false, detail: expect.stringContaining("plain commands joined by `&&`") });
  });
});
