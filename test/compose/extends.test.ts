import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { compose } from "../../kernel/compose/compose.js";
import { packageRoot } from "../../kernel/package-root.js";
import { loadStack, readStack } from "../../tools/stacks/load-stack.js";

const dir = mkdtempSync(join(tmpdir(), "keel-extends-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(path: string, value: unknown): string {
  const full = join(dir, path);
  mkdirSync(join(full, ".."), { recursive: true });
  writeFileSync(full, typeof value === "string" ? value : JSON.stringify(value));
  return full;
}

const NOTE_PLUGIN = `export default {
  manifest: { name: "note", version: "1.0.0", kind: "middleware", kernel: ">=0.1.0", description: "no-op",
    hooks: { afterAgent: {} }, config: { type: "object", properties: { tag: { type: "string", default: "x" } }, additionalProperties: false } },
  hooks: { afterAgent() {} },
};
`;

describe("stack@1 extends", () => {
  it('extends: "lead" keeps lead\'s plugins first, appends its own, merges config over lead\'s and adds order pairs', async () => {
    write("plugins/note.mjs", NOTE_PLUGIN);
    const file = write("mine.json", {
      name: "mine",
      extends: "lead",
      plugins: [{ module: "./plugins/note.mjs", config: { tag: "y" } }, { name: "receipts", config: { render: "always" } }, "token-budget"],
      order: [["token-budget", "note"]],
    });
    const { stack } = readStack(file);
    const lead = readStack("lead").stack;
    expect(stack.name).toBe("mine");
    expect("extends" in stack).toBe(false);
    expect(stack.subagentStack).toBe("subagent");
    expect(stack.plugins.slice(0, lead.plugins.length).map((e) => (typeof e === "string" ? e : "name" in e ? e.name : e.module))).toEqual(
      lead.plugins.map((e) => (typeof e === "string" ? e : "name" in e ? e.name : e.module)),
    );
    expect(stack.plugins).toContainEqual({ name: "receipts", config: { render: "always" } });
    expect(stack.plugins).toHaveLength(lead.plugins.length + 1);
    expect(stack.plugins.at(-1)).toEqual({ module: join(dir, "plugins/note.mjs"), config: { tag: "y" } });
    expect(stack.order).toEqual([["token-budget", "note"]]);

    const loaded = await loadStack(file);
    const composition = compose(loaded.stack, { plugins: loaded.plugins });
    expect(composition.order.at(-1)).toBe("note");
    expect(composition.plugins.get("receipts")!.config.render).toBe("always");
    expect(composition.plugins.get("note")!.config).toEqual({ tag: "y" });
  });

  it("a path base resolves against the extending file; the base's module entries and subagentStack against the base's own directory", async () => {
    write("base/plugins/note.mjs", NOTE_PLUGIN);
    write("base/sub.json", { name: "sub", plugins: ["workspace"] });
    write("base/base.json", { name: "base", plugins: ["workspace", { module: "./plugins/note.mjs" }], subagentStack: "./sub.json", order: [["workspace", "note"]] });
    const file = write("child/child.json", { name: "child", extends: "../base/base.json", plugins: [{ module: "../base/plugins/note.mjs", config: { tag: "z" } }], order: [["workspace", "note"]] });
    const { stack } = readStack(file);
    expect(stack.plugins).toEqual(["workspace", { module: join(dir, "base/plugins/note.mjs"), config: { tag: "z" } }]);
    expect(stack.subagentStack).toBe(join(dir, "base/sub.json"));
    expect(stack.order).toEqual([["workspace", "note"]]);
    const loaded = await loadStack(file);
    expect(compose(loaded.stack, { plugins: loaded.plugins }).order).toEqual(["workspace", "note"]);
  });

  it("an extends chain is followed (a extends b extends lead); a cycle is KEEL_ERR_STACK_EXTENDS_CYCLE naming the chain", () => {
    write("chain/b.json", { name: "b", extends: "lead", plugins: [{ name: "token-budget", config: { limit: 5 } }] });
    write("chain/a.json", { name: "a", extends: "./b.json", plugins: [{ name: "token-budget", config: { warnAt: 0.5 } }] });
    const entry = readStack(join(dir, "chain/a.json")).stack.plugins.find((e) => typeof e === "object" && "name" in e && e.name === "token-budget");
    expect(entry).toEqual({ name: "token-budget", config: { limit: 5, warnAt: 0.5 } });

    write("loop/x.json", { name: "x", extends: "./y.json", plugins: [] });
    write("loop/y.json", { name: "y", extends: "./x.json", plugins: [] });
    let thrown: unknown;
    try {
      readStack(join(dir, "loop/x.json"));
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({ code: "KEEL_ERR_STACK_EXTENDS_CYCLE" });
    expect((thrown as Error).message).toContain(`\`${join(dir, "loop/x.json")}\` → \`${join(dir, "loop/y.json")}\` → \`${join(dir, "loop/x.json")}\``);
  });

  it("a base that does not exist is KEEL_ERR_STACK_NOT_FOUND naming the extending stack; an invalid extends value is KEEL_ERR_STACK_INVALID", () => {
    expect(() => readStack(write("orphan.json", { name: "orphan", extends: "./nowhere.json", plugins: [] }))).toThrow(
      expect.objectContaining({ code: "KEEL_ERR_STACK_NOT_FOUND", message: expect.stringContaining("stack `orphan` extends `./nowhere.json`") }),
    );
    expect(() => readStack(write("bad.json", { name: "bad", extends: 3, plugins: [] }))).toThrow(expect.objectContaining({ code: "KEEL_ERR_STACK_INVALID" }));
  });

  it("an inline stack (loadStack with an object) extends relative to baseDir", async () => {
    const loaded = await loadStack({ name: "inline", extends: "subagent", plugins: [] }, { baseDir: dir });
    expect(compose(loaded.stack, { plugins: loaded.plugins }).order).toEqual(compose((await loadStack("subagent")).stack, { plugins: loaded.plugins }).order);
  });

  it("`keel compose FILE` composes an extending stack", () => {
    write("cli/plugins/note.mjs", NOTE_PLUGIN);
    const file = write("cli/stack.json", { name: "cli", extends: "lead", plugins: [{ module: "./plugins/note.mjs" }] });
    const out = execFileSync(process.execPath, [join(packageRoot(), "dist/tools/cli/bin.js"), "compose", file, "--json"], { encoding: "utf8" });
    const doc = JSON.parse(out) as { ok: boolean; order: string[] };
    expect(doc.ok).toBe(true);
    expect(doc.order).toHaveLength(16);
    expect(doc.order.at(-1)).toBe("note");
  });
});
