import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { project } from "../../contracts/upgrade.js";
import { validate } from "../../contracts/registry.js";
import { main } from "../../tools/cli/main.js";
import { fakeIO } from "./fake-io.js";
import { runScenario } from "../../tools/scenario/run-scenario.js";
import type { ScenarioV1 } from "../../contracts/scenario/v1.js";

function scenarioFile(body: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), "keel-run-test-"));
  const path = join(dir, "s.json");
  writeFileSync(path, typeof body === "string" ? body : JSON.stringify(body));
  return path;
}

const base = {
  contract: "scenario",
  version: 1,
  name: "cli-run",
  stack: "lead",
  input: "Write notes.",
  workspace: { files: { "a.txt": "hello" } },
  agents: { lead: { turns: [{ toolCalls: [{ name: "write_file", args: { path: "notes.md", content: "# Notes\n" } }] }, { content: "Wrote notes.md [r1 write_file]." }] } },
};

describe("keel run", () => {
  it("prints run-report@1 with --json --report-version 1 (exit 0) and it validates", async () => {
    const io = fakeIO();
    expect(await main(["run", scenarioFile(base), "--json", "--report-version", "1"], io)).toBe(0);
    const report = JSON.parse(io.stdout());
    expect(validate("run-report@1", report)).toEqual({ valid: true, errors: [] });
    expect(report.outcome).toMatchObject({ status: "succeeded", text: "Wrote notes.md [r1 write_file]." });
    expect(report.turns).toEqual({ lead: 2, total: 2 });
    expect(Object.keys(report.workspace.files)).toEqual(["a.txt", "notes.md"]);
    expect(report.workspace.files["notes.md"]).toEqual({ bytes: 8, sha256: createHash("sha256").update("# Notes\n").digest("hex") });
    // The workspace's five tools and the subagents plugin's `task`.
    expect(report.modelRequests.map((r: { tools: string[] }) => r.tools.length)).toEqual([6, 6]);
    // The leading system message holds the subagents plugin's delegation section.
    expect(report.modelRequests[1].messages.map((m: { role: string }) => m.role)).toEqual(["system", "user", "assistant", "tool"]);
    expect(report.events[0].event).toBe("metadata");
    expect(report.events.at(-1).event).toBe("end");
    expect(report.composition.lead).toContain("workspace");
  });

  it("prints run-report@2 by default: the second request is a delta that projects back to the @1 report", async () => {
    const v2io = fakeIO();
    const v1io = fakeIO();
    expect(await main(["run", scenarioFile(base), "--json"], v2io)).toBe(0);
    expect(await main(["run", scenarioFile(base), "--json", "--report-version", "1"], v1io)).toBe(0);
    const v2 = JSON.parse(v2io.stdout());
    expect(validate("run-report@2", v2)).toEqual({ valid: true, errors: [] });
    expect(v2.modelRequests[1]).toMatchObject({ agent: "lead", turn: 2, base: 0, parts: [{ copy: [0, 2] }, { role: "assistant" }, { role: "tool" }] });
    expect(project("run-report@2", v2, 1)).toEqual(JSON.parse(v1io.stdout()));
  });

  it("refuses another --report-version, naming the allowed values (exit 2)", async () => {
    const io = fakeIO();
    expect(await main(["run", scenarioFile(base), "--json", "--report-version", "3"], io)).toBe(2);
    const error = JSON.parse(io.stdout()).error ?? JSON.parse(io.stdout());
    expect(JSON.stringify(error)).toContain("KEEL_ERR_CLI_USAGE");
    expect(JSON.stringify(error)).toContain("--report-version must be one of 1, 2");
  });

  it("is deterministic apart from durations", async () => {
    const path = scenarioFile(base);
    const a = fakeIO();
    const b = fakeIO();
    await main(["run", path, "--json"], a);
    await main(["run", path, "--json"], b);
    expect(a.stdout()).toBe(b.stdout());
  });

  it("exits 2 naming the JSON pointer for an invalid scenario", async () => {
    const { agents: _agents, ...missing } = base;
    const io = fakeIO();
    expect(await main(["run", scenarioFile(missing)], io)).toBe(2);
    expect(io.stderr()).toContain("KEEL_ERR_SCENARIO_INVALID");
    expect(io.stderr()).toContain("`/agents`");
    const json = fakeIO();
    expect(await main(["run", scenarioFile({ ...base, maxTurns: 0 }), "--json"], json)).toBe(2);
    expect(JSON.parse(json.stdout())).toMatchObject({ ok: false, error: { code: "KEEL_ERR_SCENARIO_INVALID" } });
    expect(json.stderr()).toContain("/maxTurns");
  });

  it("exits 2 for a missing file or invalid JSON", async () => {
    const io = fakeIO();
    expect(await main(["run", "/nonexistent/s.json"], io)).toBe(2);
    expect(io.stderr()).toContain("KEEL_ERR_CLI_FILE");
    const bad = fakeIO();
    expect(await main(["run", scenarioFile("{ nope")], bad)).toBe(2);
    expect(bad.stderr()).toContain("KEEL_ERR_CLI_JSON");
  });

  it("exits 1 with the problems when the stack does not compose", async () => {
    const io = fakeIO();
    const stack = { name: "broken", plugins: ["workspace"], order: [["workspace", "ghost"]] };
    expect(await main(["run", scenarioFile({ ...base, stack }), "--json"], io)).toBe(1);
    const doc = JSON.parse(io.stdout());
    expect(doc.ok).toBe(false);
    expect(doc.problems.map((p: { code: string }) => p.code)).toEqual(["KEEL_ERR_COMPOSE_MISSING_DEP"]);
  });

  it("prints a text summary without --json", async () => {
    const io = fakeIO();
    expect(await main(["run", scenarioFile(base)], io)).toBe(0);
    expect(io.stdout()).toMatch(/outcome:\s+succeeded/);
    expect(io.stdout()).toMatch(/turns:\s+lead=2 \(total 2\)/);
  });
});

describe("keel run --fail-on", () => {
  // The forced final call (turn 2 of 2) still asks for a tool: `turn_capped`, with text → partial.
  const capped = {
    ...base,
    name: "cli-fail-on",
    maxTurns: 2,
    agents: { lead: { turns: [{ content: "Listed some.", toolCalls: [{ name: "ls", args: {} }] }], then: "repeat-last" } },
  };

  it("exits 1 when the outcome is at least as bad as the level, and still prints the report", async () => {
    const io = fakeIO();
    expect(await main(["run", scenarioFile(capped), "--fail-on", "partial", "--json"], io)).toBe(1);
    const report = JSON.parse(io.stdout());
    expect(report.outcome).toMatchObject({ status: "partial", primaryStopReason: "turn_capped" });
    expect(validate("run-report@2", report).valid).toBe(true);
  });

  it("exits 0 when the outcome is better than the level, and without --fail-on whatever the outcome", async () => {
    const failedLevel = fakeIO();
    expect(await main(["run", scenarioFile(capped), "--fail-on", "failed", "--json"], failedLevel)).toBe(0);
    expect(JSON.parse(failedLevel.stdout()).outcome.status).toBe("partial");
    expect(await main(["run", scenarioFile(capped), "--json"], fakeIO())).toBe(0);
    expect(await main(["run", scenarioFile(base), "--fail-on", "partial"], fakeIO())).toBe(0);
  });

  it("treats failed as failing both levels", async () => {
    const toolsOnly = { ...capped, agents: { lead: { turns: [{ toolCalls: [{ name: "ls", args: {} }] }], then: "repeat-last" } } };
    for (const level of ["partial", "failed"]) {
      const io = fakeIO();
      expect(await main(["run", scenarioFile(toolsOnly), "--fail-on", level, "--json"], io)).toBe(1);
      expect(JSON.parse(io.stdout()).outcome.status).toBe("failed");
    }
  });

  it("refuses an unknown level with exit 2 and the allowed values", async () => {
    const io = fakeIO();
    expect(await main(["run", scenarioFile(base), "--fail-on", "cancelled"], io)).toBe(2);
    expect(io.stderr()).toContain("KEEL_ERR_CLI_USAGE");
    expect(io.stderr()).toContain("partial, failed");
  });
});

describe("keel compose", () => {
  it("prints every hook chain for the lead stack", async () => {
    const io = fakeIO();
    expect(await main(["compose", "--json"], io)).toBe(0);
    const doc = JSON.parse(io.stdout());
    expect(doc.ok).toBe(true);
    expect(Object.keys(doc.hooks)).toEqual(["beforeAgent", "beforeModel", "wrapModelCall", "afterModel", "wrapToolCall", "afterAgent"]);
    // The default stack is `lead`; services are in the order, and each chain is in execution order.
    expect(doc.order).toEqual(expect.arrayContaining(["workspace", "subagents", "message-coalescing"]));
    expect(doc.hooks.wrapToolCall[0]).toBe("receipts");
    expect(doc.hooks.wrapModelCall.at(-1)).toBe("message-coalescing");
    const position = (name: string) => doc.order.indexOf(name);
    // after* hooks run in reverse order: finish-reason (later in the order) sees the response before loop-detection.
    expect(doc.hooks.afterModel.indexOf("finish-reason")).toBeLessThan(doc.hooks.afterModel.indexOf("loop-detection"));
    expect(position("finish-reason")).toBeGreaterThan(position("loop-detection"));
  });

  it("adds --plugin modules and reports races with exit 1", async () => {
    const dir = mkdtempSync(join(tmpdir(), "keel-compose-test-"));
    const mk = (name: string) => {
      const file = join(dir, `${name}.mjs`);
      writeFileSync(
        file,
        `export default { manifest: { name: "${name}", version: "1.0.0", kind: "middleware", kernel: ">=0.1.0", description: "x",
          hooks: { afterModel: { mutates: ["messages"] } } }, hooks: { afterModel() {} } };`,
      );
      return file;
    };
    const io = fakeIO();
    const stack = join(dir, "stack.json");
    writeFileSync(stack, JSON.stringify({ name: "minimal", plugins: ["workspace"] }));
    expect(await main(["compose", stack, "--plugin", mk("alpha"), "--plugin", mk("beta"), "--json"], io)).toBe(1);
    const problems = JSON.parse(io.stdout()).problems;
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ code: "KEEL_ERR_COMPOSE_RACE", plugins: ["alpha", "beta"], hook: "afterModel", channel: "messages" });
    expect(problems[0].fix).toContain('["alpha","beta"]');
  });

  it("exits 2 for an unknown stack and a bad flag", async () => {
    const io = fakeIO();
    expect(await main(["compose", "nope", "--json"], io)).toBe(2);
    expect(JSON.parse(io.stdout()).error.code).toBe("KEEL_ERR_STACK_NOT_FOUND");
    const flag = fakeIO();
    expect(await main(["compose", "--frobnicate"], flag)).toBe(2);
    expect(flag.stderr()).toContain("KEEL_ERR_CLI_USAGE");
  });

  it("makes the run's temporary workspace inside --workspaces DIR (created), and removes it afterwards", async () => {
    const dir = join(mkdtempSync(join(tmpdir(), "keel-run-ws-")), "nested", "ws");
    const io = fakeIO();
    expect(await main(["run", scenarioFile(base), "--workspaces", dir, "--json"], io)).toBe(0);
    expect(JSON.parse(io.stdout()).outcome.status).toBe("succeeded");
    expect(existsSync(dir)).toBe(true);
    expect(readdirSync(dir)).toEqual([]);
  });

  it("keeps the workspace under workspacesDir when asked to keep it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "keel-run-ws-kept-"));
    await runScenario(base as ScenarioV1, { workspacesDir: dir, keepWorkspace: true });
    const [made] = readdirSync(dir);
    expect(made).toMatch(/^keel-scenario-/);
    // Beside the thread directories: the workspace plugin's write log (`.keel-write-log/`).
    const threads = readdirSync(join(dir, made!)).filter((name) => name !== ".keel-write-log");
    expect(threads).toHaveLength(1);
    expect(readdirSync(join(dir, made!, threads[0]!)).sort()).toEqual(["a.txt", "notes.md"]);
  });
});
