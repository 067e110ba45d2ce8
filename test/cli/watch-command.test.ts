/**
 * `keel watch` against a real gateway (`keel serve` in-process: SQLite, the demo model, its
 * run-status feed): the log lines of a run as it progresses (queued, turns, tokens against
 * the token budget, subagents), the exit code from the outcome as `keel run --fail-on`, the
 * redrawn status on a terminal, every run without THREAD/RUN, and bad input (exit 2, stable codes).
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KERNEL_VERSION } from "../../kernel/version.js";
import { resolveServeOptions } from "../../tools/serve/serve-options.js";
import { startServer, type StartedServer } from "../../tools/serve/start-server.js";
import { watchCommand } from "../../tools/cli/commands/watch.js";
import { tempDir } from "../e2e/serve-process.js";
import { fakeIO } from "./fake-io.js";

const KEY = "key-watch";
const headers = { "content-type": "application/json", "x-api-key": KEY };

describe("keel watch", () => {
  let dir: string;
  let server: StartedServer;

  beforeAll(async () => {
    dir = tempDir("keel-watch-");
    const options = resolveServeOptions({ port: "0", db: `sqlite:${join(dir, "keel.db")}` }, { KEEL_API_KEYS: `${KEY}:watcher` }, dir);
    server = await startServer(options, { version: KERNEL_VERSION, log: () => undefined, cwd: dir });
  }, 30_000);

  afterAll(async () => {
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function thread(): Promise<string> {
    const response = await fetch(`${server.url}/threads`, { method: "POST", headers, body: "{}" });
    return ((await response.json()) as { thread_id: string }).thread_id;
  }

  /** A demo run that starts a second from now, so the watch is there from its admission on. */
  async function delayedRun(threadId: string, extra: Record<string, unknown> = {}): Promise<string> {
    const response = await fetch(`${server.url}/threads/${threadId}/runs`, { method: "POST", headers, body: JSON.stringify({ assistant_id: "lead", input: "Show me what you can do.", after_seconds: 1, ...extra }) });
    expect(response.status).toBe(200);
    return ((await response.json()) as { run_id: string }).run_id;
  }

  const watch = (args: string[], options: Parameters<typeof watchCommand>[2] = { tty: false }) => {
    const io = fakeIO(dir);
    return { io, done: watchCommand([...args, "--url", server.url, "--api-key", KEY], io, options) };
  };

  it("logs a run's progress line by line until it ends, and exits 0 for a success", async () => {
    const threadId = await thread();
    const runId = await delayedRun(threadId);
    const { io, done } = watch([`${threadId}/${runId}`]);
    expect(await done).toBe(0);
    const lines = io.stdout().split("\n");
    const ref = `${threadId}/${runId}`;
    // Every progress line: time, run, status, turn against the turn limit, tokens against the token budget, activity.
    const progress = lines.slice(0, -1);
    for (const line of progress) expect(line).toMatch(new RegExp(`^\\d\\d:\\d\\d:\\d\\d ${ref} (pending|running|success) turn \\d+/150 tokens \\d+/200000 `));
    expect(progress[0]).toMatch(/ pending turn 0\/150 tokens 0\/200000 queued$/);
    expect(progress.some((l) => / running turn 0\/150 tokens 0\/200000 model call$/.test(l))).toBe(true);
    expect(progress.some((l) => /waiting on subagents: lead\/call_lead_1_1_\S+ in_progress$/.test(l))).toBe(true);
    expect(progress.some((l) => /subagents: lead\/call_lead_1_1_\S+ succeeded$/.test(l))).toBe(true);
    expect(progress.some((l) => / running turn 2\/150 /.test(l))).toBe(true);
    // Never the same line twice in a row.
    for (let i = 1; i < progress.length; i++) expect(progress[i]!.slice(9)).not.toBe(progress[i - 1]!.slice(9));

    const report = (await (await fetch(`${server.url}/threads/${threadId}/runs/${runId}/report`, { headers })).json()) as { outcome: { usage: { totalTokens: number } } };
    expect(lines.at(-1)).toBe(`outcome succeeded turns 3 tokens ${report.outcome.usage.totalTokens}`);
    expect(io.stderr()).toBe("");
  });

  it("exits 1 for a capped run with --fail-on partial, 0 without (the default fails on failed)", async () => {
    const threadId = await thread();
    const runId = await delayedRun(threadId, { context: { max_turns: 1 } });
    const capped = watch([`${threadId}/${runId}`, "--fail-on", "partial"]);
    expect(await capped.done).toBe(1);
    expect(capped.io.stdout().split("\n").at(-1)).toMatch(/^outcome partial \(turn_capped\) turns 1 tokens \d+$/);
    expect(capped.io.stdout()).toContain(` turn 1/1 `);
    // The same finished run again: the snapshot alone ends the watch.
    const again = watch([`${threadId}/${runId}`]);
    expect(await again.done).toBe(0);
    expect(again.io.stdout().split("\n")).toHaveLength(2);
    expect(again.io.stdout().split("\n")[0]).toMatch(new RegExp(` ${threadId}/${runId} success turn 1/1 tokens \\d+/200000 finished`));
  });

  it("redraws the status in place on a terminal", async () => {
    const threadId = await thread();
    const runId = await delayedRun(threadId);
    const written: string[] = [];
    const { done } = watch([`${threadId}/${runId}`], { tty: true, write: (t) => void written.push(t) });
    expect(await done).toBe(0);
    expect(written.length).toBeGreaterThan(2);
    // After the first draw, each one moves the cursor up over the previous block and clears it.
    expect(written[0]).not.toContain("\x1b[");
    expect(written.slice(1).every((t) => /^\x1b\[\d+A\r\x1b\[0J/.test(t))).toBe(true);
    expect(written.at(-1)).toMatch(/outcome succeeded turns 3 tokens \d+\n$/);
  });

  it("without THREAD/RUN follows every run of the caller's until stopped (exit 0)", async () => {
    const threadId = await thread();
    const runId = await delayedRun(threadId);
    const stop = new AbortController();
    const { io, done } = watch([], { tty: false, signal: stop.signal });
    for (let i = 0; i < 300 && !io.stdout().includes(`${threadId}/${runId} success`); i++) await new Promise((r) => setTimeout(r, 50));
    stop.abort();
    expect(await done).toBe(0);
    const mine = io.stdout().split("\n").filter((l) => l.includes(`${threadId}/${runId} `));
    expect(mine[0]).toMatch(/ pending turn 0 tokens 0 queued$/);
    expect(mine.some((l) => / running .* model call$/.test(l))).toBe(true);
    expect(mine.at(-1)).toMatch(/ success turn 3 tokens \d+ finished · subagents: /);
  });

  it("refuses bad input with exit 2 and a stable code", async () => {
    const cases: Array<[string[], string]> = [
      [["not-a-ref"], "KEEL_ERR_CLI_USAGE"],
      [["a/b", "c/d"], "KEEL_ERR_CLI_USAGE"],
      [["a/b", "--fail-on", "sometimes"], "KEEL_ERR_CLI_USAGE"],
      [[`${await thread()}/no-such-run`], "KEEL_ERR_WATCH_RUN_NOT_FOUND"],
    ];
    for (const [args, code] of cases) {
      const { io, done } = watch(args);
      expect(await done, args.join(" ")).toBe(2);
      expect(io.stderr(), args.join(" ")).toMatch(new RegExp(`^${code}: `));
      expect(io.stdout()).toBe("");
    }
    const wrongKey = fakeIO(dir);
    expect(await watchCommand(["a/b", "--url", server.url, "--api-key", "nope"], wrongKey, { tty: false })).toBe(2);
    expect(wrongKey.stderr()).toMatch(/^KEEL_ERR_WATCH_FETCH: .*401.*--api-key/);
    const badUrl = fakeIO(dir);
    expect(await watchCommand(["--url", "ftp://x"], badUrl, { tty: false })).toBe(2);
    expect(badUrl.stderr()).toMatch(/^KEEL_ERR_CLI_USAGE: /);
    const unreachable = fakeIO(dir);
    expect(await watchCommand(["a/b", "--url", "http://127.0.0.1:1"], unreachable, { tty: false })).toBe(2);
    expect(unreachable.stderr()).toMatch(/^KEEL_ERR_WATCH_FETCH: cannot reach/);
  });
});
