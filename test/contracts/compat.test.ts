import { describe, expect, it } from "vitest";
import { diffSchemas } from "../../contracts/compat/diff.js";
import { CORPUS } from "./compat-corpus.js";
import { counterexamples, instances } from "./compat-oracle.js";

describe("diffSchemas corpus", () => {
  it("has at least 60 pairs, each named once", () => {
    expect(CORPUS.length).toBeGreaterThanOrEqual(60);
    expect(new Set(CORPUS.map((c) => c.name)).size).toBe(CORPUS.length);
  });

  it.each(CORPUS.map((c) => [c.name, c] as const))("%s", (_, c) => {
    const diff = diffSchemas(c.old, c.new);
    const summary = diff.changes.map((ch) => `${ch.code} ${ch.path} b=${ch.backward} f=${ch.forward} ${ch.message}`);
    expect({ backward: diff.backward, forward: diff.forward, codes: [...new Set(diff.changes.map((ch) => ch.code))].sort() }, summary.join("\n")).toEqual({
      backward: c.backward,
      forward: c.forward,
      codes: [...new Set(c.codes)].sort(),
    });
    expect(diff.full).toBe(diff.backward && diff.forward);
    // The verdict is the combination of the changes.
    expect(diff.backward).toBe(diff.changes.every((ch) => ch.backward));
    expect(diff.forward).toBe(diff.changes.every((ch) => ch.forward));

    const candidates = instances(c.old, c.new);
    const backwardBreaks = counterexamples(c.old, c.new, candidates);
    const forwardBreaks = counterexamples(c.new, c.old, candidates);
    if (diff.backward) expect(backwardBreaks, "compatible backward, yet an old instance fails the new schema").toEqual([]);
    else if (!c.undecidable) expect(backwardBreaks.length, "incompatible backward, but no instance shows it").toBeGreaterThan(0);
    if (diff.forward) expect(forwardBreaks, "compatible forward, yet a new instance fails the old schema").toEqual([]);
    else if (!c.undecidable) expect(forwardBreaks.length, "incompatible forward, but no instance shows it").toBeGreaterThan(0);
  });

  it("agrees with Confluent's backward verdict wherever it decides, except the documented divergences", () => {
    const decided = CORPUS.filter((c) => c.confluent !== undefined);
    expect(decided.length).toBeGreaterThanOrEqual(40);
    const disagreements = decided.filter((c) => diffSchemas(c.old, c.new).backward !== (c.confluent === "compatible")).map((c) => c.name);
    const documented = decided.filter((c) => c.divergence !== undefined).map((c) => c.name);
    expect(disagreements.sort()).toEqual(documented.sort());
  });
});
