import { execFile } from "node:child_process";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const root = join(import.meta.dirname, "..", "..");

// The quick start's runs write agent-made files under `.keel/` (a workspace's `*.test.mjs`).
// `npm test` must not collect them: a failing agent-written test would fail the suite.
describe("test collection", () => {
  it("lists no file under .keel/ even when an agent wrote a test file there", async () => {
    const dir = join(root, ".keel", "workspaces", `collection-probe-${process.pid}`);
    const probe = join(dir, "agent-written.test.mjs");
    await mkdir(dir, { recursive: true });
    await writeFile(probe, 'import { it } from "vitest"; it("fails", () => { throw new Error("collected"); });\n');
    try {
      const { stdout } = await run("npx", ["--no-install", "vitest", "list", "--filesOnly", "--json"], {
        cwd: root,
        maxBuffer: 16 * 1024 * 1024,
      });
      const files = (JSON.parse(stdout) as Array<{ file: string }>).map((entry) => entry.file);
      expect(files.some((file) => file.endsWith("test/meta/collection.test.ts"))).toBe(true);
      expect(files.filter((file) => file.includes("/.keel/"))).toEqual([]);
      expect(files.filter((file) => file.includes("/dist/"))).toEqual([]);
      // The nemesis suite has its own config (`npm run test:nemesis`); its checker's unit tests are in the default run.
      expect(files.filter((file) => file.includes("/test/nemesis/"))).toEqual([]);
      expect(files.some((file) => file.endsWith("test/nemesis-checker/history.test.ts"))).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
