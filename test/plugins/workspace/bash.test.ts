import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ToolContext } from "../../../kernel/plugin/types.js";
import { bashTool } from "../../../plugins/workspace/index.js";

let root: string;

function context(config: Record<string, unknown>, signal = new AbortController().signal): ToolContext {
  return {
    threadId: "t-bash",
    runId: "r1",
    agent: "lead",
    turn: 1,
    toolCallId: "c1",
    config: { root, ...config },
    signal,
    now: () => "2025-01-01T00:00:00.000Z",
  };
}

/** Running, not a zombie: a killed orphan stays a zombie until its new parent reaps it. */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), "keel-ws-bash-"));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("real bash", () => {
  it("runs in the thread directory and ends with the exit code", async () => {
    const result = await bashTool.invoke({ command: "echo hello; pwd" }, context({}));
    const dir = path.join(root, "t-bash");
    expect(result).toEqual({
      content: `hello\n${dir}\nexit code: 0`,
      status: "success",
      artifact: { kind: "bash", command: "echo hello; pwd", exitCode: 0, output: `hello\n${dir}\n`, timedOut: false },
    });
  });

  it("interleaves stdout and stderr and reports a non-zero exit code", async () => {
    const result = (await bashTool.invoke({ command: "echo out; sleep 0.05; echo err >&2; sleep 0.05; echo out2; exit 3" }, context({}))) as {
      content: string;
      artifact: { exitCode: number };
    };
    expect(result.content).toBe("out\nerr\nout2\nexit code: 3");
    expect(result.artifact.exitCode).toBe(3);
  });

  it("starts a fresh shell per call, files persist", async () => {
    await bashTool.invoke({ command: "X=1; echo data > f.txt" }, context({}));
    const result = (await bashTool.invoke({ command: 'echo "x=${X:-unset}"; cat f.txt' }, context({}))) as { content: string };
    expect(result.content).toBe("x=unset\ndata\nexit code: 0");
    expect(readFileSync(path.join(root, "t-bash", "f.txt"), "utf8")).toBe("data\n");
  });

  it("kills a command at its timeout and reports it as timed out", async () => {
    const started = Date.now();
    const result = (await bashTool.invoke({ command: "echo begin; sleep 5", timeoutSeconds: 1 }, context({}))) as {
      content: string;
      status: string;
      artifact: { exitCode: number | null; timedOut: boolean; output: string };
    };
    expect(Date.now() - started).toBeLessThan(3000);
    expect(result.status).toBe("error");
    expect(result.artifact).toMatchObject({ exitCode: null, timedOut: true, output: "begin\n" });
    expect(result.content).toBe("begin\n[KEEL_ERR_BASH_TIMEOUT: timed out after 1 s; the command and its process group were killed]\nexit code: null");
  });

  it("kills the whole process group at the timeout, background jobs included", async () => {
    const result = (await bashTool.invoke({ command: "sleep 30 & echo $! > bg.pid; wait", timeoutSeconds: 1 }, context({}))) as {
      artifact: { timedOut: boolean };
    };
    expect(result.artifact.timedOut).toBe(true);
    const pid = Number(readFileSync(path.join(root, "t-bash", "bg.pid"), "utf8"));
    expect(isAlive(pid)).toBe(false);
  });

  it("leaves no background process behind when the shell exits", async () => {
    const result = (await bashTool.invoke({ command: "sleep 30 > /dev/null 2>&1 & echo $! > bg.pid; echo started" }, context({}))) as {
      content: string;
    };
    expect(result.content).toBe("started\nexit code: 0");
    const pid = Number(readFileSync(path.join(root, "t-bash", "bg.pid"), "utf8"));
    await new Promise((r) => setTimeout(r, 50));
    expect(isAlive(pid)).toBe(false);
  });

  it("kills the command when the signal aborts", async () => {
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(), 200);
    const result = (await bashTool.invoke({ command: "sleep 5" }, context({}, controller.signal))) as {
      status: string;
      artifact: { timedOut: boolean; exitCode: number | null };
    };
    expect(Date.now() - started).toBeLessThan(3000);
    expect(result.status).toBe("error");
    expect(result.artifact).toMatchObject({ timedOut: false, exitCode: null });
  });

  it("keeps only the last maxOutputChars of the output", async () => {
    const result = (await bashTool.invoke({ command: "printf 'a%.0s' $(seq 1 50); printf 'END'" }, context({ maxOutputChars: 10 }))) as {
      artifact: { output: string };
    };
    expect(result.artifact.output).toBe("[43 earlier characters of output dropped]\naaaaaaaEND");
  });

  it("answers that bash is disabled when bash is off", async () => {
    expect(await bashTool.invoke({ command: "echo hi" }, context({ bash: "off" }))).toEqual({
      content: 'bash is disabled in this workspace (option `bash` is "off")',
      status: "error",
    });
  });
});

describe("scripted bash", () => {
  const scriptedBash = [
    { match: "npm test", output: "5 passed\n", exitCode: 0 },
    { match: "/^pytest( |$)/", output: "1 failed\n", exitCode: 1 },
    { match: "/LINT/i", output: "clean" },
    { match: "npm", output: "npm generic" },
  ];

  it("matches substrings and regexes, first match wins, never running the command", async () => {
    const ctx = context({ scriptedBash });
    expect(await bashTool.invoke({ command: "cd app && npm test -- --ci" }, ctx)).toEqual({
      content: "5 passed\nexit code: 0",
      status: "success",
      artifact: { kind: "bash", command: "cd app && npm test -- --ci", exitCode: 0, output: "5 passed\n", timedOut: false },
    });
    expect(await bashTool.invoke({ command: "pytest -q" }, ctx)).toMatchObject({ content: "1 failed\nexit code: 1" });
    expect(await bashTool.invoke({ command: "run-pytest" }, ctx)).toMatchObject({ content: expect.stringContaining("exit code: 127") });
    expect(await bashTool.invoke({ command: "make lint" }, ctx)).toMatchObject({ content: "clean\nexit code: 0" });
    expect(await bashTool.invoke({ command: "npm install" }, ctx)).toMatchObject({ content: "npm generic\nexit code: 0" });
  });

  it("answers 127 when nothing matches", async () => {
    const result = await bashTool.invoke({ command: "touch created.txt" }, context({ scriptedBash, bash: "off" }));
    expect(result).toEqual({
      content: "scripted bash: no match for `touch created.txt`\nexit code: 127",
      status: "success",
      artifact: { kind: "bash", command: "touch created.txt", exitCode: 127, output: "scripted bash: no match for `touch created.txt`", timedOut: false },
    });
  });
});
