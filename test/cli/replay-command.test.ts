import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { validate } from "../../contracts/registry.js";
import type { RunReportV1 } from "../../contracts/run-report/v1.js";
import type { ScenarioV1 } from "../../contracts/scenario/v1.js";
import { main } from "../../tools/cli/main.js";
import { runScenario } from "../../tools/scenario/run-scenario.js";
import { captureIO } from "./capture-io.js";

const dir = mkdtempSync(join(tmpdir(), "keel-replay-test-"));

/** A lead that reads, runs bash, delegates a write to a child and answers: every kind of recorded step. */
const delegating: ScenarioV1 = {
  contract: "scenario",
  version: 1,
  name: "replay-delegating",
  stack: "lead",
  input: "Count the notes, then have a helper write the summary.",
  workspace: { files: { "notes.md": "alpha\nbeta\ngamma\n" } },
  bash: [{ match: "wc -l notes.md", output: "3 notes.md\n", exitCode: 0 }],
  agents: {
    lead: {
      turns: [
        { content: "Reading first.", toolCalls: [{ name: "read_file", args: { path: "notes.md" } }, { name: "bash", args: { command: "wc -l notes.md" } }] },
        {
          content: "Delegating the summary.",
          toolCalls: [{ name: "task", args: { description: "Write summary.md", prompt: "Write summary.md saying there are 3 notes.", subagentType: "general-purpose" } }],
        },
        { content: "Done: 3 notes [r2 bash], summary.md written by the helper." },
      ],
    },
    "general-purpose": {
      turns: [
        // Usage a real model reported: the replay takes it from the recorded task events, not from an estimate.
        { toolCalls: [{ name: "write_file", args: { path: "summary.md", content: "3 notes\n" } }], usage: { input_tokens: 700, output_tokens: 40 } },
        { usage: { input_tokens: 900, output_tokens: 60 }, toolCalls: [{ name: "return_result", args: { status: "succeeded", text: "Wrote summary.md [r1 write_file].", completedSteps: ["write summary.md"], missingSteps: [] } }] },
      ],
    },
  },
};

/** The same read four times: with loop-detection's defaults (warn at 3, stop at 5) it warns once and finishes. */
const rereading: ScenarioV1 = {
  contract: "scenario",
  version: 1,
  name: "replay-rereading",
  stack: { name: "rereading", plugins: ["workspace", "loop-detection"] },
  input: "Summarize notes.md",
  workspace: { files: { "notes.md": "alpha\nbeta\n" } },
  agents: {
    lead: {
      turns: [
        ...Array.from({ length: 4 }, () => ({ content: "Reading again.", toolCalls: [{ name: "read_file", args: { path: "notes.md" } }] })),
        { content: "alpha and beta." },
      ],
    },
  },
};

function save(name: string, value: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(value, null, 2));
  return path;
}

let delegatingReport: RunReportV1;
let rereadingReport: RunReportV1;
let delegatingFile: string;
let rereadingFile: string;

beforeAll(async () => {
  delegatingReport = (await runScenario(delegating, { reportVersion: 1 })) as RunReportV1;
  rereadingReport = (await runScenario(rereading, { reportVersion: 1 })) as RunReportV1;
  delegatingFile = save("delegating.report.json", delegatingReport);
  rereadingFile = save("rereading.report.json", rereadingReport);
}, 30_000);

describe("keel replay --report", () => {
  it("replays a recorded run on the same stack: same outcome, no divergence, the child run again, tool results from the recording", async () => {
    // The recording itself: a child ran, bash and read_file results are in it.
    expect(delegatingReport.outcome.status).toBe("succeeded");
    expect(Object.keys(delegatingReport.turns).sort()).toEqual(["lead", "lead/call_lead_2_1", "total"]);

    const io = captureIO();
    expect(await main(["replay", "--report", delegatingFile, "--stack", "lead", "--json"], io)).toBe(0);
    const out = io.json();
    expect(Object.keys(out).sort()).toEqual(["recorded", "replayed", "report", "same"]);
    expect(out.same).toBe(true);
    expect(out.recorded).toEqual(delegatingReport.outcome);
    expect(out.replayed).toEqual(delegatingReport.outcome);
    expect(validate("run-report@1", out.report)).toEqual({ valid: true, errors: [] });
    expect(out.report.turns).toEqual(delegatingReport.turns);
    // The replay starts from an empty workspace: notes.md is the recorded read_file result, not a file.
    const toolResults = (r: RunReportV1) => r.messages.filter((m) => m.role === "tool").map((m) => m.content);
    expect(toolResults(out.report)).toEqual(toolResults(delegatingReport));
    expect(toolResults(out.report)[0]).toContain("alpha");
    // The child's write ran again, so the workspace holds what it wrote (and no notes.md).
    expect(Object.keys(out.report.workspace.files)).toEqual(["summary.md"]);
    expect(out.report.workspace.files["summary.md"]).toEqual(delegatingReport.workspace.files["summary.md"]);
    // The child spent what it did in the recording (700+900 in, 40+60 out).
    const childUsage = (r: RunReportV1) => (r.delegations[0] as { usage?: unknown }).usage;
    expect(childUsage(delegatingReport)).toEqual({ inputTokens: 1600, outputTokens: 100, totalTokens: 1700 });
    expect(childUsage(out.report)).toEqual(childUsage(delegatingReport));
    // Every model request of every agent is what the recording sent.
    expect(out.report.modelRequests).toEqual(delegatingReport.modelRequests);
  }, 30_000);

  it("replays on a stack with other loop-detection settings: same false, and names the first turn that diverged", async () => {
    expect(rereadingReport.outcome.status).toBe("succeeded");
    const strict = save("strict.stack.json", { name: "strict-loops", plugins: ["workspace", { name: "loop-detection", config: { warnAt: 2, hardLimit: 3 } }] });

    const io = captureIO();
    expect(await main(["replay", "--report", rereadingFile, "--stack", strict, "--json"], io)).toBe(0);
    const out = io.json();
    expect(out.same).toBe(false);
    expect(out.recorded).toEqual(rereadingReport.outcome);
    expect(out.replayed.stopReasons.map((s: { reason: string; by: string; turn: number }) => [s.reason, s.by, s.turn])).toEqual([["loop_capped", "loop-detection", 3]]);
    expect(out.divergence).toEqual({ agent: "lead", turn: 3, reason: "stop reasons at this turn: recorded [none], replayed [loop_capped by loop-detection at turn 3]" });

    // The text output puts both outcomes side by side and names the turn.
    const text = captureIO();
    expect(await main(["replay", "--report", rereadingFile, "--stack", strict], text)).toBe(0);
    const lines = text.stdout.join("\n").split("\n");
    expect(lines.find((l) => l.startsWith("status"))).toMatch(/^status\s+succeeded\s+partial$/);
    expect(lines).toContain("same: no");
    expect(lines).toContain("diverged at lead turn 3: stop reasons at this turn: recorded [none], replayed [loop_capped by loop-detection at turn 3]");
  }, 30_000);

  it("names a guard that only warns differently: the first request that differs", async () => {
    const warnEarly = save("warn-early.stack.json", { name: "warn-early", plugins: ["workspace", { name: "loop-detection", config: { warnAt: 2 } }] });
    const io = captureIO();
    expect(await main(["replay", "--report", rereadingFile, "--stack", warnEarly, "--json"], io)).toBe(0);
    const out = io.json();
    // The outcome is the same, but the warning rode in request 3 instead of 4.
    expect(out.same).toBe(true);
    expect(out.divergence.agent).toBe("lead");
    expect(out.divergence.turn).toBe(3);
    expect(out.divergence.reason).toMatch(/^message \d+ differs: recorded nothing, replayed hidden user `\[LOOP WARNING\]/);
  }, 30_000);

  it("names the turn whose call a guard of the replay's stack refused", async () => {
    // Recorded without read-before-write: the second write of notes.md, made without a read, went through.
    const overwriting: ScenarioV1 = {
      contract: "scenario",
      version: 1,
      name: "replay-overwriting",
      stack: { name: "plain", plugins: ["workspace"] },
      input: "Draft notes.md twice.",
      agents: {
        lead: {
          turns: [
            { toolCalls: [{ name: "write_file", args: { path: "notes.md", content: "draft 1\n" } }] },
            { toolCalls: [{ name: "write_file", args: { path: "notes.md", content: "draft 2\n" } }] },
            { content: "Drafted." },
          ],
        },
      },
    };
    const recorded = save("overwriting.report.json", await runScenario(overwriting, { reportVersion: 1 }));
    const guarded = save("guarded.stack.json", { name: "guarded", plugins: ["workspace", "read-before-write"] });
    const io = captureIO();
    expect(await main(["replay", "--report", recorded, "--stack", guarded, "--json"], io)).toBe(0);
    const out = io.json();
    expect(out.same).toBe(true);
    expect(out.divergence.agent).toBe("lead");
    expect(out.divergence.turn).toBe(2);
    expect(out.divergence.reason).toMatch(/^the result of write_file call call_lead_2_1 differs: recorded tool `.*`, replayed tool \(error\) `write_file refused/);
  }, 30_000);

  it("--workspace DIR seeds the workspace the recorded run started from, so its edits land again", async () => {
    const editing: ScenarioV1 = {
      contract: "scenario",
      version: 1,
      name: "replay-editing",
      stack: { name: "plain", plugins: ["workspace"] },
      input: "Update notes.md.",
      workspace: { files: { "notes.md": "old line\n", "docs/keep.md": "kept\n" } },
      agents: { lead: { turns: [{ toolCalls: [{ name: "str_replace", args: { path: "notes.md", oldText: "old", newText: "new" } }] }, { content: "Updated." }] } },
    };
    const report = (await runScenario(editing, { reportVersion: 1 })) as RunReportV1;
    expect(report.messages.find((m) => m.role === "tool")?.status).toBe("success");
    const file = save("editing.report.json", report);

    // Without the initial workspace the edit has no file to change: the recorded result stands, the file does not.
    const bare = captureIO();
    expect(await main(["replay", "--report", file, "--json"], bare)).toBe(0);
    expect(bare.json().report.workspace.files).toEqual({});

    const initial = join(dir, "initial-workspace");
    mkdirSync(join(initial, "docs"), { recursive: true });
    writeFileSync(join(initial, "notes.md"), "old line\n");
    writeFileSync(join(initial, "docs", "keep.md"), "kept\n");
    const seeded = captureIO();
    expect(await main(["replay", "--report", file, "--workspace", initial, "--json"], seeded)).toBe(0);
    expect(seeded.json().same).toBe(true);
    expect(seeded.json().report.workspace.files).toEqual(report.workspace.files);

    const missing = captureIO();
    expect(await main(["replay", "--report", file, "--workspace", join(dir, "nowhere"), "--json"], missing)).toBe(2);
    expect(missing.json().error).toMatchObject({ code: "KEEL_ERR_CLI_FILE" });
  }, 30_000);

  it("--export writes a scenario@1 that `keel run` accepts and that reproduces the recorded outcome", async () => {
    const exported = join(dir, "regression.scenario.json");
    const io = captureIO();
    expect(await main(["replay", "--report", delegatingFile, "--export", exported, "--json"], io)).toBe(0);
    expect(io.json().exported).toBe(exported);
    const scenario = JSON.parse(readFileSync(exported, "utf8")) as ScenarioV1;
    expect(validate("scenario@1", scenario)).toEqual({ valid: true, errors: [] });
    // The recorded lead plugins are exactly the built-in `lead` stack: replayed on it, with its options.
    expect(scenario.stack).toBe("lead");
    expect(Object.keys(scenario.agentPaths ?? {}).sort()).toEqual(["lead", "lead/call_lead_2_1"]);
    expect(scenario.toolResults?.map((f) => [f.agent, f.tool])).toEqual([
      ["lead", "read_file"],
      ["lead/call_lead_2_1", "write_file"],
    ]);
    expect(scenario.bash).toEqual([{ match: "/^wc -l notes\\.md$/s", output: "3 notes.md\n", exitCode: 0 }]);

    const run = captureIO();
    expect(await main(["run", exported, "--json", "--report-version", "1"], run)).toBe(0);
    expect(run.json().outcome).toEqual(delegatingReport.outcome);
  }, 30_000);
});

describe("keel replay THREAD/RUN --url", () => {
  let server: Server;
  let url: string;
  const seen: Array<{ path: string; key: string | undefined }> = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push({ path: req.url ?? "", key: req.headers["x-api-key"] as string | undefined });
      if (req.headers["x-api-key"] !== "k1") return void res.writeHead(401, { "content-type": "application/json" }).end(JSON.stringify({ code: "KEEL_ERR_HTTP_UNAUTHORIZED", message: "missing API key" }));
      if (req.url !== "/threads/t1/runs/r1/report?version=1") return void res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ code: "KEEL_ERR_HTTP_NOT_FOUND", message: "no such run" }));
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(rereadingReport));
    });
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((done) => server.close(() => done())));

  it("fetches the run's report (run-report@1, with the API key) and replays it", async () => {
    const io = captureIO();
    expect(await main(["replay", "t1/r1", "--url", url, "--api-key", "k1", "--json"], io)).toBe(0);
    expect(seen.at(-1)).toEqual({ path: "/threads/t1/runs/r1/report?version=1", key: "k1" });
    expect(io.json().same).toBe(true);
    expect(io.json().recorded).toEqual(rereadingReport.outcome);
  }, 30_000);

  it("exit 2 with KEEL_ERR_REPLAY_FETCH when the server refuses (no key, unknown run, unreachable)", async () => {
    const noKey = captureIO();
    expect(await main(["replay", "t1/r1", "--url", url, "--json"], noKey)).toBe(2);
    expect(noKey.json().error.code).toBe("KEEL_ERR_REPLAY_FETCH");
    expect(noKey.json().error.message).toContain("answered 401 (pass --api-key): KEEL_ERR_HTTP_UNAUTHORIZED: missing API key");

    const unknown = captureIO();
    expect(await main(["replay", "t1/r9", "--url", url, "--api-key", "k1"], unknown)).toBe(2);
    expect(unknown.stderr.join("\n")).toContain("KEEL_ERR_REPLAY_FETCH: GET /threads/t1/runs/r9/report answered 404");

    const closed = createServer();
    await new Promise<void>((done) => closed.listen(0, "127.0.0.1", done));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((done) => closed.close(() => done()));
    const down = captureIO();
    expect(await main(["replay", "t1/r1", "--url", `http://127.0.0.1:${port}`, "--json"], down)).toBe(2);
    expect(down.json().error.code).toBe("KEEL_ERR_REPLAY_FETCH");
    expect(down.json().error.message).toContain("ECONNREFUSED");
  });
});

describe("keel replay: bad input", () => {
  it("exit 2 with a stable code and what to do", async () => {
    const cases: Array<[string[], string, string]> = [
      [[], "KEEL_ERR_CLI_USAGE", "expected one THREAD/RUN (or --report FILE)"],
      [["t1/r1"], "KEEL_ERR_CLI_USAGE", "THREAD/RUN needs --url"],
      [["not-a-ref", "--url", "http://127.0.0.1:1"], "KEEL_ERR_CLI_USAGE", "is not THREAD/RUN"],
      [["t1/r1", "--url", "http://127.0.0.1:1", "--report", "x.json"], "KEEL_ERR_CLI_USAGE", "not both"],
      [["--report", join(dir, "missing.json")], "KEEL_ERR_CLI_FILE", "cannot read"],
      [["--report", save("bad.json", { contract: "scenario", version: 1 })], "KEEL_ERR_REPLAY_REPORT", "is not a run report"],
      [["--report", save("no-lead.json", { ...JSON.parse(JSON.stringify(rereadingReport)), modelRequests: [] })], "KEEL_ERR_REPLAY_REPORT", "no model request of the lead"],
      [["--report", save("r.json", rereadingReport), "--bogus"], "KEEL_ERR_CLI_USAGE", "--bogus"],
    ];
    for (const [args, code, text] of cases) {
      const io = captureIO();
      expect(await main(["replay", ...args, "--json"], io), args.join(" ")).toBe(2);
      expect(io.json().ok).toBe(false);
      expect(io.json().error.code, args.join(" ")).toBe(code);
      expect(io.json().error.message, args.join(" ")).toContain(text);
      expect(io.stderr.join("\n")).toContain(`${code}: `);
    }
  });

  it("--help prints the usage, flags and exit codes", async () => {
    const io = captureIO();
    expect(await main(["replay", "--help"], io)).toBe(0);
    const text = io.stdout.join("\n");
    expect(text).toContain("usage: keel replay (THREAD/RUN --url URL [--api-key KEY] | --report FILE)");
    expect(text).toContain("--export FILE");
    expect(text).toContain("KEEL_ERR_REPLAY_REPORT");
  });
});
