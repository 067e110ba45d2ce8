import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BIN, assertBuilt } from "../e2e/serve-process.js";

/**
 * `keel run` as a process: its temporary workspace goes to TMPDIR, so a private TMPDIR shows
 * whether it was removed. In-process tests cannot see these failures (vitest keeps Node alive).
 */
function runKeel(scenario: unknown, args: string[], onStarted?: (child: ReturnType<typeof spawn>, tmp: string) => void) {
  assertBuilt();
  const dir = mkdtempSync(join(tmpdir(), "keel-run-process-"));
  const tmp = mkdtempSync(join(dir, "tmp-"));
  const file = join(dir, "s.json");
  writeFileSync(file, JSON.stringify(scenario));
  const child = spawn(process.execPath, [BIN, "run", file, ...args], { env: { ...process.env, TMPDIR: tmp }, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  onStarted?.(child, tmp);
  return new Promise<{ code: number | null; stdout: string; stderr: string; tmpLeft: string[] }>((resolve) =>
    child.once("exit", (code) => resolve({ code, stdout, stderr, tmpLeft: readdirSync(tmp) })),
  );
}

const task = { name: "task", id: "t1", args: { description: "d", prompt: "p", subagentType: "general-purpose" } };

describe("keel run as a process", () => {
  it("prints the report of a run that only waits on a child's timeout, and removes its workspace", async () => {
    const scenario = {
      contract: "scenario", version: 1, name: "run-timer-only", stack: "lead",
      config: { subagents: { timeoutSeconds: 1 } },
      input: "Delegate one task.",
      agents: { lead: { turns: [{ toolCalls: [task] }, { content: "The child timed out." }] }, "general-purpose": { turns: [{ content: "never" }] } },
      faults: [{ agent: "general-purpose", turn: 1, kind: "hang" }],
    };
    const result = await runKeel(scenario, ["--json"]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.outcome.text).toBe("The child timed out.");
    expect(report.delegations.map((d: { status: string }) => d.status)).toEqual(["timed_out"]);
    expect(result.tmpLeft).toEqual([]);
  }, 30_000);

  it("cancels on SIGINT: prints the cancelled report, exits 130 and removes its workspace", async () => {
    const scenario = {
      contract: "scenario", version: 1, name: "run-sigint", stack: "lead", input: "Wait forever.",
      agents: { lead: { turns: [{ content: "never sent" }], then: "stop" } },
      faults: [{ agent: "lead", turn: 1, times: "always", kind: "hang" }],
    };
    const result = await runKeel(scenario, ["--json"], (child, tmp) => {
      // Interrupt once the run has made its workspace (it is then inside the hanging model call).
      const poll = setInterval(() => {
        if (readdirSync(tmp).length > 0) {
          clearInterval(poll);
          setTimeout(() => child.kill("SIGINT"), 200);
        }
      }, 25);
      child.once("exit", () => clearInterval(poll));
    });
    expect(result.code).toBe(130);
    expect(JSON.parse(result.stdout).outcome.status).toBe("cancelled");
    expect(result.tmpLeft).toEqual([]);
  }, 30_000);
});
