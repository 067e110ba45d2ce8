import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { validate } from "../../contracts/registry.js";
import { compose } from "../../kernel/compose/index.js";
import { createAgentRuntime } from "../../kernel/loop/runtime.js";
import type { WorkspacePort } from "../../kernel/ports/workspace.js";
import { ScriptedChatModel } from "../../tools/testing/scripted-model.js";
import {
  acceptancePlugin,
  evaluateRunAcceptance,
  filesWrittenFromMessages,
  renderChecklist,
  renderLedgerSummary,
} from "../../plugins/acceptance/index.js";
import { workspacePlugin } from "../../plugins/workspace/index.js";
import { runScenario } from "../../tools/scenario/run-scenario.js";

/**
 * A child that writes its report and runs the tests, checked afterwards the way the
 * subagents plugin will: over the run's own evidence (files, `bashRuns`, tool results),
 * never over what the model says it did.
 */
const script = {
  turns: [
    { toolCalls: [{ name: "write_file", args: { path: "report.md", content: "# Report\n\nAll good.\n" } }] },
    { toolCalls: [{ name: "write_file", args: { path: "../escape.md", content: "x" } }] },
    { toolCalls: [{ name: "bash", args: { command: "cd . && npm test" } }] },
    { toolCalls: [{ name: "bash", args: { command: "npm run lint" } }] },
    { toolCalls: [{ name: "bash", args: { command: "echo 'tests passed: npm run e2e -- 9 passed'" } }] },
    { content: "I wrote report.md, npm test passed, lint passed and e2e passed." },
  ],
};
const scriptedBash = [
  { match: "npm test", output: "> keel@0.1.0 test\n\n Test Files  3 passed (3)\n      Tests  12 passed (12)\n" },
  { match: "npm run lint", output: "src/a.ts\n  1:1  error  no-unused-vars\n\n✖ 1 problem (1 error, 0 warnings)\n", exitCode: 1 },
  { match: "/^echo/", output: "tests passed: npm run e2e -- 9 passed\n" },
];

let root: string;
beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), "keel-accept-run-"));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("acceptance over a real run's evidence", () => {
  it("checks criteria against the files, the bashRuns channel and the tool results of the run", async () => {
    const composition = compose({ name: "test", plugins: [workspacePlugin, acceptancePlugin] }, { config: [{ workspace: { root, scriptedBash } }] });
    const runtime = createAgentRuntime(composition, { model: new ScriptedChatModel({ script }) });
    const result = await runtime.run({ threadId: "t-child", runId: "r-child", input: "Write the report and run the tests." });
    expect(result.outcome.status).toBe("succeeded");

    const bashRuns = result.values.bashRuns as Array<{ command: string; exitCode: number }>;
    expect(bashRuns.map((r) => [r.command, r.exitCode])).toEqual([
      ["cd . && npm test", 0],
      ["npm run lint", 1],
      ["echo 'tests passed: npm run e2e -- 9 passed'", 0],
    ]);
    expect(filesWrittenFromMessages(result.messages)).toEqual(["report.md"]);

    const workspace = workspacePlugin.services!.workspace!(composition.plugins.get("workspace")!.config) as WorkspacePort;
    const { verdict, problems } = await evaluateRunAcceptance(
      [
        "file:report.md non-empty",
        "file_written:report.md",
        "file_written:../escape.md",
        "tests_passed:npm test",
        "tests_passed:npm run lint",
        "tests_passed:npm run e2e",
        "the report is accurate",
        42,
      ],
      result.values,
      { threadId: "t-child", workspace, config: composition.plugins.get("acceptance")!.config },
    );
    expect(problems).toEqual(["criterion 8: not a string; dropped"]);
    expect(validate("acceptance-verdict@1", verdict)).toEqual({ valid: true, errors: [] });
    expect(renderChecklist(verdict)).toBe(
      [
        "Acceptance checklist (deterministic checks; execution evidence only, does not validate claim correctness):",
        "- [holds] file:report.md non-empty — read-back ok, 20 bytes",
        "- [holds] file_written:report.md — written in the run; read-back ok, 20 bytes",
        "- [UNVERIFIED] file_written:../escape.md — path is outside the workspace",
        "- [holds] tests_passed:npm test — exit 0; output shows `3 passed`",
        "- [does not hold] tests_passed:npm run lint — exit code 1; output shows `1 error`",
        "- [UNVERIFIED] tests_passed:npm run e2e — no recorded bash run of `npm run e2e` among the last 20 runs",
        "- [UNVERIFIED] the report is accurate — not deterministically checkable",
      ].join("\n"),
    );
    expect(renderLedgerSummary(verdict)).toBe("acceptance: 3 hold, 1 does not hold, 3 UNVERIFIED");
    expect(verdict.allHold).toBe(false);
  });

  it("takes the workspace from a hook-like ctx.port and honours the configured evidence window", async () => {
    const composition = compose({ name: "test", plugins: [workspacePlugin, acceptancePlugin] }, {
      config: [{ workspace: { root, scriptedBash } }, { acceptance: { evidenceWindow: 1 } }],
    });
    const runtime = createAgentRuntime(composition, { model: new ScriptedChatModel({ script }) });
    const result = await runtime.run({ threadId: "t-child", runId: "r-child", input: "go" });
    const port = <T>(name: string): T => workspacePlugin.services![name]!(composition.plugins.get("workspace")!.config) as T;
    const { verdict } = await evaluateRunAcceptance(["tests_passed:npm test"], result.values, {
      threadId: "t-child",
      port,
      config: composition.plugins.get("acceptance")!.config,
    });
    // With a window of one run, only the final `echo` is evidence: the earlier `npm test` is out of reach.
    expect(verdict.leaves[0]).toMatchObject({ checked: false, detail: "no recorded bash run of `npm test` among the last 1 runs" });
  });

  it("composes into a scenario run without changing it", async () => {
    const report = await runScenario(
      {
        contract: "scenario",
        version: 1,
        name: "acceptance: composes",
        stack: { name: "test", plugins: ["workspace"] },
        input: "go",
        agents: { lead: script },
        bash: scriptedBash,
      },
      { plugins: [acceptancePlugin] },
    );
    expect(report.composition.lead).toEqual(["workspace", "acceptance"]);
    expect(report.outcome.status).toBe("succeeded");
    expect(Object.keys(report.workspace.files)).toEqual(["report.md"]);
  });
});
