import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { seedWorkspace, snapshotWorkspace } from "../../../plugins/workspace/index.js";

let root: string;

beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), "keel-ws-snap-"));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("seedWorkspace", () => {
  it("writes the files, creating directories", () => {
    const dir = path.join(root, "t1");
    seedWorkspace(dir, { "notes.md": "# Notes\n", "src/app/main.ts": "export {};\n" });
    expect(readFileSync(path.join(dir, "notes.md"), "utf8")).toBe("# Notes\n");
    expect(readFileSync(path.join(dir, "src/app/main.ts"), "utf8")).toBe("export {};\n");
  });

  it("refuses a file that escapes the workspace", () => {
    const dir = path.join(root, "t1");
    expect(() => seedWorkspace(dir, { "../evil.txt": "x" })).toThrow(/refused path `\.\.\/evil\.txt`/);
    expect(existsSync(path.join(root, "evil.txt"))).toBe(false);
  });
});

describe("snapshotWorkspace", () => {
  it("lists every regular file with its size and sha256, sorted, without following symlinks", () => {
    const dir = path.join(root, "t1");
    mkdirSync(path.join(dir, "b/c"), { recursive: true });
    writeFileSync(path.join(dir, "z.txt"), "hello\n");
    writeFileSync(path.join(dir, "b/c/empty"), "");
    writeFileSync(path.join(dir, "a.txt"), "abc");
    const outside = path.join(root, "outside");
    mkdirSync(outside);
    writeFileSync(path.join(outside, "secret"), "s");
    symlinkSync(outside, path.join(dir, "link-dir"));
    symlinkSync(path.join(dir, "a.txt"), path.join(dir, "link-file"));

    const snapshot = snapshotWorkspace(dir);
    expect(Object.keys(snapshot)).toEqual(["a.txt", "b/c/empty", "z.txt"]);
    expect(snapshot).toEqual({
      "a.txt": { bytes: 3, sha256: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
      "b/c/empty": { bytes: 0, sha256: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
      "z.txt": { bytes: 6, sha256: "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03" },
    });
  });

  it("is empty for a workspace that was never created", () => {
    expect(snapshotWorkspace(path.join(root, "never"))).toEqual({});
  });
});
