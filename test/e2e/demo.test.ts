import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KERNEL_VERSION } from "../../kernel/version.js";
import { resolveServeOptions } from "../../tools/serve/serve-options.js";
import { startServer, type StartedServer } from "../../tools/serve/start-server.js";
import { tempDir } from "./serve-process.js";

/**
 * What `npm start` serves: the built-in demo model answers every run afresh with a
 * delegation, a file written, tests run through real bash, and an acceptance checklist.
 */
describe("the demo model behind `keel serve`", () => {
  let dir: string;
  let server: StartedServer;

  beforeAll(async () => {
    dir = tempDir("keel-e2e-demo-");
    const options = resolveServeOptions({ port: "0", db: `sqlite:${join(dir, "keel.db")}` }, {}, dir);
    server = await startServer(options, { version: KERNEL_VERSION, log: () => undefined, cwd: dir });
  }, 30_000);

  afterAll(async () => {
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function runDemo(threadId: string) {
    const response = await fetch(`${server.url}/threads/${threadId}/runs/wait`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ assistant_id: "lead", input: "Show me what you can do." }),
    });
    expect(response.status).toBe(200);
    const runPath = response.headers.get("content-location")!;
    return (await (await fetch(`${server.url}${runPath}/report`)).json()) as {
      outcome: { status: string };
      delegations: { status: string; acceptanceVerdict?: { allHold: boolean; leaves: { criterion: string; holds: boolean }[] } }[];
      workspace: { files: Record<string, { bytes: number }> };
      messages: { role: string; content: string }[];
      turns: Record<string, number>;
    };
  }

  it("/info says the server runs the demo model (the run inspector then offers a demo run)", async () => {
    expect(((await (await fetch(`${server.url}/info`)).json()) as { model: string }).model).toBe("demo");
  });

  it("delegates, writes files, runs the tests and checks acceptance — on every run", async () => {
    const thread = (await (await fetch(`${server.url}/threads`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })).json()) as { thread_id: string };
    for (const attempt of [1, 2]) {
      const report = await runDemo(thread.thread_id);
      expect(report.outcome.status, `run ${attempt}`).toBe("succeeded");
      expect(report.delegations.at(-1)).toMatchObject({ status: "succeeded" });
      expect(report.delegations.at(-1)!.acceptanceVerdict?.allHold).toBe(true);
      expect(report.delegations.at(-1)!.acceptanceVerdict?.leaves.map((l) => l.criterion)).toEqual(["file:tides.mjs exists", "file_written:tides.test.mjs", "tests_passed:node tides.test.mjs"]);
      expect(Object.keys(report.workspace.files).sort()).toEqual(["README.md", "tides.mjs", "tides.test.mjs"]);
      const toolTexts = report.messages.filter((m) => m.role === "tool").map((m) => m.content);
      expect(toolTexts.some((t) => t.includes("Acceptance checklist") && t.includes("[holds] tests_passed:node tides.test.mjs"))).toBe(true);
      expect(toolTexts.some((t) => /3 passed\nexit code: 0/.test(t))).toBe(true);
      // The child's five scripted turns are in the report, under its agent path.
      expect(Object.entries(report.turns).filter(([agent]) => agent.startsWith("lead/")).map(([, n]) => n)).toEqual([5]);
      expect(report.turns.lead).toBe(3);
    }
  });
});
