/**
 * Storage hygiene of `keel serve`: every server's state (store, checkpoints, workspaces)
 * is its own unless it is on the same database; `--workspaces DIR` puts workspaces there.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveServeOptions } from "../../tools/serve/serve-options.js";
import { defaultWorkspacesDir, prepareWorkspacesDir } from "../../tools/serve/storage-paths.js";
import { FIXTURES, startServe, tempDir, type ServeProcess } from "./serve-process.js";

const dirs: string[] = [];
const scratch = (prefix: string) => {
  const dir = tempDir(prefix);
  dirs.push(dir);
  return dir;
};
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

describe("where a server keeps its workspaces", () => {
  it("beside a SQLite file, one directory per file", () => {
    expect(defaultWorkspacesDir("sqlite:./data/a.db", "/w")).toEqual({ dir: "/w/data/a.db.workspaces", temporary: false });
    expect(defaultWorkspacesDir("sqlite:./data/b.db", "/w").dir).toBe("/w/data/b.db.workspaces");
    expect(defaultWorkspacesDir("sqlite:/srv/keel.db", "/w").dir).toBe("/srv/keel.db.workspaces");
  });

  it("keeps an earlier release's .keel/workspaces for keel.db only, until keel.db has its own", () => {
    const cwd = scratch("keel-ws-legacy-");
    mkdirSync(join(cwd, ".keel", "workspaces"), { recursive: true });
    expect(defaultWorkspacesDir("sqlite:./.keel/keel.db", cwd).dir).toBe(join(cwd, ".keel", "workspaces"));
    expect(defaultWorkspacesDir("sqlite:./.keel/other.db", cwd).dir).toBe(join(cwd, ".keel", "other.db.workspaces"));
    mkdirSync(join(cwd, ".keel", "keel.db.workspaces"));
    expect(defaultWorkspacesDir("sqlite:./.keel/keel.db", cwd).dir).toBe(join(cwd, ".keel", "keel.db.workspaces"));
  });

  it("under .keel/ for PostgreSQL, one directory per database whatever the credentials", () => {
    const a = defaultWorkspacesDir("postgres://u:p@db:5432/keel", "/w").dir;
    expect(a).toMatch(/^\/w\/\.keel\/workspaces-keel-[0-9a-f]{10}$/);
    expect(defaultWorkspacesDir("postgres://other:secret@db/keel", "/w").dir).toBe(a);
    expect(defaultWorkspacesDir("postgres://u:p@db:5432/keel2", "/w").dir).not.toBe(a);
    expect(defaultWorkspacesDir("postgres://u:p@db2:5432/keel", "/w").dir).not.toBe(a);
  });

  it("in a fresh temporary directory under .keel/ for an in-memory database", () => {
    const cwd = scratch("keel-ws-memory-");
    const first = defaultWorkspacesDir("sqlite::memory:", cwd);
    const second = defaultWorkspacesDir("sqlite::memory:", cwd);
    expect(first.temporary).toBe(true);
    expect(first.dir.startsWith(join(cwd, ".keel", "workspaces-memory-"))).toBe(true);
    expect(existsSync(first.dir)).toBe(true);
    expect(second.dir).not.toBe(first.dir);
  });

  it("where --workspaces says, resolved against the working directory, created; a file there is refused", () => {
    const cwd = scratch("keel-ws-flag-");
    expect(resolveServeOptions({ workspaces: "ws" }, {}, cwd).workspaces).toBe(join(cwd, "ws"));
    expect(() => resolveServeOptions({ workspaces: " " }, {}, cwd)).toThrow(expect.objectContaining({ code: "KEEL_ERR_CLI_USAGE" }));
    expect(prepareWorkspacesDir(join(cwd, "ws"), "sqlite::memory:", cwd)).toEqual({ dir: join(cwd, "ws"), temporary: false });
    expect(existsSync(join(cwd, "ws"))).toBe(true);
    writeFileSync(join(cwd, "a-file"), "");
    expect(() => prepareWorkspacesDir(join(cwd, "a-file"), "sqlite::memory:", cwd)).toThrow(expect.objectContaining({ code: "KEEL_ERR_SERVE_CONFIG" }));
  });
});

describe("two keel serve processes with different --db files in one folder", () => {
  const cwd = scratch("keel-two-dbs-");
  let a: ServeProcess;
  let b: ServeProcess;
  beforeAll(async () => {
    const model = `scripted:${join(FIXTURES, "steps.scenario.json")}`;
    [a, b] = await Promise.all([
      startServe(["--port", "0", "--db", "sqlite:a.db", "--model", model], { cwd }),
      startServe(["--port", "0", "--db", "sqlite:b.db", "--model", model, "--workspaces", "ws-b"], { cwd }),
    ]);
  }, 60_000);

  it("share no state: threads, checkpoints and workspaces are each server's own; --workspaces puts them there", async () => {
    const json = { "content-type": "application/json" };
    const post = (base: string, path: string, body: unknown) => fetch(`${base}${path}`, { method: "POST", headers: json, body: JSON.stringify(body) });
    try {
      // The same thread id on both: each store has its own threads.
      expect((await post(a.url, "/threads", { thread_id: "shared" })).status).toBe(200);
      expect((await post(b.url, "/threads", { thread_id: "shared" })).status).toBe(200);
      const wait = await post(a.url, "/threads/shared/runs/wait", { assistant_id: "lead", input: { messages: [{ role: "user", content: "Write a note." }] } });
      expect(wait.status).toBe(200);

      expect(readFileSync(join(cwd, "a.db.workspaces", "shared", "note.md"), "utf8").length).toBeGreaterThan(0);
      expect(existsSync(join(cwd, "ws-b", "shared", "note.md"))).toBe(false);
      const stateA = (await (await fetch(`${a.url}/threads/shared/state`)).json()) as { values: { messages?: unknown[] } };
      const stateB = (await (await fetch(`${b.url}/threads/shared/state`)).json()) as { values: { messages?: unknown[] } };
      expect(stateA.values.messages?.length).toBeGreaterThan(0);
      expect(stateB.values.messages ?? []).toEqual([]);
      // Checkpoints live in each store file; no shared checkpoint file is made.
      expect(existsSync(join(cwd, "checkpoints.db"))).toBe(false);
      expect(existsSync(join(cwd, "a.db.checkpoints.db"))).toBe(false);

      // B's own run writes into --workspaces.
      expect((await post(b.url, "/threads/shared/runs/wait", { assistant_id: "lead", input: { messages: [{ role: "user", content: "Write a note." }] } })).status).toBe(200);
      expect(existsSync(join(cwd, "ws-b", "shared", "note.md"))).toBe(true);
      expect(existsSync(join(cwd, "b.db.workspaces"))).toBe(false);
      expect(existsSync(join(cwd, ".keel", "workspaces"))).toBe(false);
    } finally {
      expect((await a.stop("SIGTERM")).code).toBe(0);
      expect((await b.stop("SIGTERM")).code).toBe(0);
    }
  });
});
