import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { project, upgrade, validate } from "../../contracts/index.js";
import type { ScenarioV1 } from "../../contracts/scenario/v1.js";
import { runScenario } from "../../tools/scenario/run-scenario.js";

type Step = { tool: "write_file" | "read_file" | "ls" | "missing"; path: string } | { text: string };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ tool: fc.constantFrom("write_file" as const, "read_file" as const, "ls" as const, "missing" as const), path: fc.constantFrom("a.md", "b.md", "notes.md") }),
  fc.record({ text: fc.string({ minLength: 1, maxLength: 12 }) }),
);

function scenario(steps: readonly Step[]): ScenarioV1 {
  const turns = steps.map((s, i) =>
    "text" in s
      ? { toolCalls: [{ id: `c${i}`, name: "write_file", args: { path: `t${i}.md`, content: s.text } }] }
      : { toolCalls: [{ id: `c${i}`, name: s.tool, args: s.tool === "write_file" ? { path: s.path, content: `v${i}` } : s.tool === "ls" ? {} : { path: s.path } }] },
  );
  return {
    contract: "scenario",
    version: 1,
    name: "report-versions",
    stack: "lead",
    // The receipt ledger after the system message changes every turn: deltas must copy around it.
    config: { receipts: { render: "always" } },
    input: "Edit the notes.",
    workspace: { files: { "notes.md": "Tides follow the moon." } },
    agents: { lead: { turns: [...turns, { content: "Done [r1 write_file]." }] } },
  };
}

describe("run-report@2 of real runs", () => {
  it("for random lead-stack runs, the @2 report expanded with `project` deep-equals the @1 report, and upgrade(project(@2)) is @2", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 8 }), async (steps) => {
        const v2 = await runScenario(scenario(steps), { reportVersion: 2 });
        const v1 = await runScenario(scenario(steps));
        expect(validate("run-report@2", v2).errors ?? []).toEqual([]);
        expect(v1.modelRequests.length).toBe(steps.length + 1);
        expect(v2.modelRequests.filter((r) => "base" in r).length).toBe(steps.length);
        const projected = project("run-report@2", v2, 1);
        expect(projected).toEqual(v1);
        expect(upgrade("run-report@1", projected)).toEqual(v2);
      }),
      { numRuns: 6 },
    );
  });
});
