/**
 * Every relative link in the shipped documentation resolves: README.md, docs/*.md and every
 * README the package ships (package.json `files`). A link's file must exist and be shipped
 * (a link into test/ or the source tree works in a checkout and breaks in an install), and its
 * `#anchor` must be a heading of that file (GitHub's heading ids). A broken link fails with
 * its file:line.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { describe, expect, it } from "vitest";
import { packageRoot } from "../../kernel/package-root.js";

const ROOT = packageRoot();
const FILES: readonly string[] = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { files: string[] }).files;
/** What npm packs whatever `files` says. */
const ALWAYS_SHIPPED = ["package.json", "README.md", "LICENSE"];

/** Whether `path` (relative to the package root, `/`-separated) is in the package. */
export function isShipped(path: string, files: readonly string[] = FILES): boolean {
  if (ALWAYS_SHIPPED.includes(path)) return true;
  return files.some((entry) => {
    const pattern = new RegExp(`^${entry.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[^/]+")}(/.*)?$`);
    return pattern.test(path);
  });
}

/** README.md, docs/*.md and every shipped README (the `files` globs expanded against the tree). */
function documents(): string[] {
  const docs = readdirSync(join(ROOT, "docs")).filter((n) => n.endsWith(".md")).map((n) => `docs/${n}`);
  const readmes = ["plugins", "kernel", "tools"].flatMap((dir) => [
    `${dir}/README.md`,
    ...readdirSync(join(ROOT, dir)).map((name) => `${dir}/${name}/README.md`),
  ]);
  return ["README.md", ...docs, ...readmes.filter((p) => existsSync(join(ROOT, p)) && isShipped(p))];
}

/** Markdown with fenced blocks and inline code blanked out (line numbers kept). */
function prose(markdown: string): string[] {
  let fenced = false;
  return markdown.split("\n").map((line) => {
    if (/^\s*```/.test(line)) {
      fenced = !fenced;
      return "";
    }
    return fenced ? "" : line.replace(/`[^`]*`/g, (code) => " ".repeat(code.length));
  });
}

/** GitHub's id for each heading of `markdown` (lowercased, punctuation dropped, spaces to `-`, repeats numbered). */
export function headingIds(markdown: string): Set<string> {
  const ids = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const base = heading[1]!
      .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/ /g, "-");
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    ids.add(count === 0 ? base : `${base}-${count}`);
  }
  return ids;
}

/** The relative links of a document: `[text](target)` outside code, with their 1-based line. */
export function relativeLinks(markdown: string): Array<{ target: string; line: number }> {
  return prose(markdown).flatMap((text, index) =>
    [...text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)]
      .map((m) => m[1]!)
      .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target))
      .map((target) => ({ target, line: index + 1 })),
  );
}

/** Why `target`, linked from `from`, does not resolve in the package ("" when it does). */
export function brokenLink(from: string, target: string, read: (path: string) => string | null = readShipped): string {
  const [pathPart, anchor] = target.split("#", 2) as [string, string | undefined];
  const path = pathPart === "" ? from : normalize(join(dirname(from), decodeURIComponent(pathPart))).replace(/\\/g, "/").replace(/\/$/, "");
  if (path.startsWith("..")) return `${target}: outside the package`;
  const text = read(path);
  if (text === null) return `${target}: ${path} does not exist`;
  if (!isShipped(path)) return `${target}: ${path} is not shipped (package.json \`files\`)`;
  if (anchor !== undefined && anchor !== "") {
    if (!path.endsWith(".md")) return `${target}: an anchor into a file that is not Markdown`;
    if (!headingIds(text).has(anchor)) return `${target}: ${path} has no heading #${anchor}`;
  }
  return "";
}

function readShipped(path: string): string | null {
  const full = join(ROOT, path);
  if (!existsSync(full)) return null;
  return statSync(full).isDirectory() ? "" : readFileSync(full, "utf8");
}

describe("links in the shipped documentation", () => {
  const docs = documents();

  it("reads README.md, docs/ and every shipped README", () => {
    expect(docs).toEqual(expect.arrayContaining(["README.md", "docs/http.md", "docs/plugins.md", "plugins/gateway/README.md", "plugins/README.md", "kernel/runs/README.md", "tools/serve/README.md"]));
    expect(docs.every((doc) => isShipped(doc))).toBe(true);
  });

  it("every relative link and #anchor resolves to a shipped file and an existing heading", () => {
    const broken = docs.flatMap((doc) => {
      const text = readFileSync(join(ROOT, doc), "utf8");
      return relativeLinks(text)
        .map(({ target, line }) => ({ at: `${doc}:${line}`, problem: brokenLink(doc, target) }))
        .filter(({ problem }) => problem !== "")
        .map(({ at, problem }) => `${at} ${problem}`);
    });
    expect(broken).toEqual([]);
  });

  it("every plugin README links the plugin author's guide, docs/plugins.md", () => {
    const readmes = readdirSync(join(ROOT, "plugins")).map((name) => `plugins/${name}/README.md`).filter((p) => existsSync(join(ROOT, p)));
    expect(readmes.length).toBeGreaterThan(15);
    const missing = readmes.filter((p) => !relativeLinks(readFileSync(join(ROOT, p), "utf8")).some(({ target }) => brokenLink(p, target) === "" && normalize(join(dirname(p), target.split("#")[0]!)) === "docs/plugins.md"));
    expect(missing).toEqual([]);
  });
});

describe("the checks bite", () => {
  const files: Record<string, string> = {
    "docs/a.md": "# A page\n\n## Run `keel serve`, twice\n\n## Run `keel serve`, twice\n",
    "docs/b.md": "x",
    "test/differential/README.md": "# Diff\n",
  };
  const read = (path: string) => files[path] ?? null;

  it("finds links outside code only, with their line", () => {
    expect(relativeLinks("see [a](a.md#x) and `[b](b.md)`\n```md\n[c](c.md)\n```\n[d](https://example.com) [e](#e \"title\")")).toEqual([
      { target: "a.md#x", line: 1 },
      { target: "#e", line: 5 },
    ]);
  });

  it("names a missing file, an unshipped file, a missing heading; accepts GitHub's ids", () => {
    expect(brokenLink("docs/b.md", "a.md#run-keel-serve-twice", read)).toBe("");
    expect(brokenLink("docs/b.md", "a.md#run-keel-serve-twice-1", read)).toBe("");
    expect(brokenLink("docs/b.md", "a.md#run-keel-serve-twice-2", read)).toMatch(/no heading #run-keel-serve-twice-2/);
    expect(brokenLink("docs/b.md", "c.md", read)).toMatch(/docs\/c\.md does not exist/);
    expect(brokenLink("docs/b.md", "../test/differential/README.md", read)).toMatch(/not shipped/);
    expect(brokenLink("docs/a.md", "#a-page", read)).toBe("");
    expect(brokenLink("docs/a.md", "#nope", read)).toMatch(/no heading #nope/);
    expect(brokenLink("docs/a.md", "../../x.md", read)).toMatch(/outside the package/);
  });

  it("reads package.json `files` as npm does: directories, files and one-segment globs", () => {
    const files = ["dist", "plugins/*/README.md", "docs"];
    expect(isShipped("plugins/gateway/README.md", files)).toBe(true);
    expect(isShipped("plugins/gateway/index.ts", files)).toBe(false);
    expect(isShipped("plugins/a/b/README.md", files)).toBe(false);
    expect(isShipped("docs/http.md", files)).toBe(true);
    expect(isShipped("docsx/http.md", files)).toBe(false);
    expect(isShipped("README.md", files)).toBe(true);
  });
});
