import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { ScenarioV1 } from "../../contracts/scenario/v1.js";
import { readBeforeWritePlugin } from "../../plugins/read-before-write/index.js";
import { runScenario } from "../../tools/scenario/run-scenario.js";

/**
 * Incident: "the same report section appended five times". The model reads report.md
 * once, then appends its section again and again (it never re-reads, so it does not see
 * that the first append landed). With read-before-write only the first append lands.
 */
const original = "# Report\n\n## Summary\nDone.\n";
const section = "\n## Findings\n- the cache is cold on start\n";
const appendSection = { name: "str_replace", args: { path: "report.md", oldText: "## Summary\nDone.\n", newText: `## Summary\nDone.\n${section}` } };

function scenario(name: string, turns: ScenarioV1["agents"]["lead"]["turns"]): ScenarioV1 {
  return {
    contract: "scenario",
    version: 1,
    name,
    stack: { name: "test", plugins: ["workspace"] },
    input: "Add the findings section to report.md.",
    workspace: { files: { "report.md": original } },
    agents: { lead: { turns: [...turns, { content: "Added the findings section." }] } },
  };
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
const count = (text: string, needle: string) => text.split(needle).length - 1;

const fiveAppends = scenario("read-before-write: five appends after one read", [
  { toolCalls: [{ name: "read_file", args: { path: "report.md" } }] },
  { toolCalls: [appendSection] },
  { toolCalls: [appendSection] },
  { toolCalls: [appendSection] },
  { toolCalls: [appendSection] },
  { toolCalls: [appendSection] },
]);

/** report.md with the findings section appended `times` times. */
const withSections = (times: number) => original.replace("## Summary\nDone.\n", `## Summary\nDone.\n${section.repeat(times)}`);

describe("incident: the same report section appended five times", () => {
  it("reproduces without the plugin: the section lands again and again", async () => {
    const report = await runScenario(fiveAppends);
    expect(report.messages.filter((m) => m.role === "tool").map((m) => m.status)).toEqual(["success", "success", "success", "success", "success", "success"]);
    expect(count(withSections(5), "## Findings")).toBe(5);
    expect(report.workspace.files["report.md"]).toEqual({ bytes: Buffer.byteLength(withSections(5)), sha256: sha256(withSections(5)) });
  });

  it("with read-before-write only the first append lands; the rest are refused", async () => {
    const report = await runScenario(fiveAppends, { plugins: [readBeforeWritePlugin] });
    expect(report.composition.lead).toEqual(["workspace", "read-before-write"]);
    const tools = report.messages.filter((m) => m.role === "tool");
    expect(tools.map((m) => m.status)).toEqual(["success", "success", "error", "error", "error", "error"]);
    for (const refused of tools.slice(2)) {
      expect(refused.content).toMatch(/^str_replace refused: `report\.md` changed since your last read_file of it/);
      expect(refused.content).toContain("Call read_file on `report.md` now");
    }
    expect(count(withSections(1), "## Findings")).toBe(1);
    expect(report.workspace.files["report.md"]).toEqual({ bytes: Buffer.byteLength(withSections(1)), sha256: sha256(withSections(1)) });
    const guards = report.events.filter((e) => e.event === "guard");
    expect(guards).toHaveLength(4);
    expect(report.outcome.status).toBe("succeeded");
  });

  it("of a parallel pair of edits after one read, exactly one lands", async () => {
    const edit = (tag: string) => ({ name: "str_replace", args: { path: "report.md", oldText: "Done.\n", newText: `Done.\n${tag}\n` } });
    const report = await runScenario(
      scenario("read-before-write: parallel pair", [{ toolCalls: [{ name: "read_file", args: { path: "report.md" } }] }, { toolCalls: [edit("A"), edit("B")] }]),
      { plugins: [readBeforeWritePlugin] },
    );
    const pair = report.messages.filter((m) => m.role === "tool").slice(1);
    expect(pair.map((m) => m.status).sort()).toEqual(["error", "success"]);
    expect(pair.find((m) => m.status === "error")!.content).toContain("changed since your last read_file");
    const candidates = ["A", "B"].map((tag) => sha256(original.replace("Done.\n", `Done.\n${tag}\n`)));
    expect(candidates).toContain(report.workspace.files["report.md"]!.sha256);
  });
});
