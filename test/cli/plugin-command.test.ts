import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { pluginCommand } from "../../tools/cli/commands/plugin.js";
import { main } from "../../tools/cli/main.js";
import { captureIO } from "./capture-io.js";

const fixtures = join(process.cwd(), "test", "fixtures");
const plugin = (name: string) => `test/fixtures/plugins/${name}.mjs`;
const REDACTOR_STACK = "test/fixtures/stacks/with-redactor.json";

describe("keel plugin check", () => {
  it("a well-formed plugin composes into `lead`: ok, exit 0", async () => {
    const io = captureIO();
    expect(await pluginCommand(["check", plugin("audit-log"), "--json"], io)).toBe(0);
    expect(io.json()).toEqual({ ok: true, manifestProblems: [], problems: [] });
  });

  it("text mode says so", async () => {
    const io = captureIO();
    expect(await pluginCommand(["check", plugin("audit-log")], io)).toBe(0);
    expect(io.stdout.join("\n")).toBe(["manifest of `audit-log`: ok", "`audit-log` in stack `lead`: composes", "ok"].join("\n"));
  });

  it("an implemented but undeclared hook is a manifest problem with its fix (reported once)", async () => {
    const io = captureIO();
    expect(await pluginCommand(["check", plugin("undeclared-hook"), "--json"], io)).toBe(1);
    const doc = io.json();
    expect(doc.ok).toBe(false);
    expect(doc.manifestProblems).toEqual([
      {
        code: "KEEL_ERR_MANIFEST_HOOKS",
        message: "`undeclared-hook` implements `beforeModel` but its manifest does not declare it",
        pointer: "/hooks/beforeModel",
        fix: "add `beforeModel: {}` to manifest.hooks (with its observes/mutates)",
      },
    ]);
    expect(doc.problems).toEqual([]);
  });

  it("a missing config schema is a warning entry at /config: ok stays true, exit 0", async () => {
    const io = captureIO();
    expect(await pluginCommand(["check", plugin("no-config"), "--json"], io)).toBe(0);
    const doc = io.json();
    expect(doc.ok).toBe(true);
    expect(doc.problems).toEqual([]);
    const [problem, ...rest] = doc.manifestProblems;
    expect(rest).toEqual([]);
    expect(problem).toMatchObject({ code: "KEEL_ERR_MANIFEST_INVALID", severity: "warning", pointer: "/config" });
    expect(problem.fix).toMatch(/declare `config`/);
  });

  it("text mode marks the warning and still says ok", async () => {
    const io = captureIO();
    expect(await pluginCommand(["check", plugin("no-config")], io)).toBe(0);
    const lines = io.stdout.join("\n").split("\n");
    expect(lines[0]).toBe("manifest of `no-config`: ok (1 warning)");
    expect(lines[1]).toMatch(/^ {2}warning KEEL_ERR_MANIFEST_INVALID: manifest of `no-config` has no `config` schema/);
    expect(lines.at(-1)).toBe("ok");
  });

  it("a module named like a built-in reports the duplicate instead of checking the built-in", async () => {
    const io = captureIO();
    expect(await pluginCommand(["check", plugin("loop-detection-clone"), "--json"], io)).toBe(1);
    const doc = io.json();
    expect(doc.ok).toBe(false);
    expect(doc.manifestProblems).toEqual([]);
    expect(doc.problems).toEqual([
      expect.objectContaining({ code: "KEEL_ERR_COMPOSE_DUPLICATE", plugins: ["loop-detection"], message: expect.stringContaining("like a built-in plugin") }),
    ]);
  });

  it("the built-in's own module is checked as itself, not as a duplicate", async () => {
    const io = captureIO();
    expect(await pluginCommand(["check", "plugins/loop-detection/index.ts", "--json"], io)).toBe(0);
    expect(io.json()).toEqual({ ok: true, manifestProblems: [], problems: [] });
  });

  it("a race with a plugin of the --stack is reported as in `compose`, with the fix", async () => {
    const io = captureIO();
    expect(await pluginCommand(["check", plugin("trimmer"), "--stack", REDACTOR_STACK, "--json"], io)).toBe(1);
    const doc = io.json();
    expect(doc.ok).toBe(false);
    expect(doc.manifestProblems).toEqual([]);
    expect(doc.problems).toEqual([
      {
        code: "KEEL_ERR_COMPOSE_RACE",
        message:
          '`redactor` and `trimmer` both mutate `messages` in afterModel with no order between them; add ["redactor","trimmer"] or ["trimmer","redactor"] to `order`',
        plugins: ["redactor", "trimmer"],
        hook: "afterModel",
        channel: "messages",
        fix: expect.stringContaining(`add ["redactor","trimmer"] or ["trimmer","redactor"] to the stack's order, or order them in the manifest you control`),
      },
    ]);
  });

  it("text mode lists the race and its fix", async () => {
    const io = captureIO();
    expect(await pluginCommand(["check", plugin("trimmer"), "--stack", REDACTOR_STACK], io)).toBe(1);
    const text = io.stdout.join("\n");
    expect(text).toContain("`trimmer` in stack `test/fixtures/stacks/with-redactor.json`: does not compose (1 problem)");
    expect(text).toContain("KEEL_ERR_COMPOSE_RACE: `redactor` and `trimmer` both mutate `messages`");
    expect(text).toContain(`fix: add ["redactor","trimmer"] or ["trimmer","redactor"] to the stack's order, or order them in the manifest you control`);
    // The fix is printed once (the message names the race; the fix line says what to change).
    expect(text.match(/or order them in the manifest you control/g)).toHaveLength(1);
    expect(text.endsWith("not ok")).toBe(true);
  });

  it("the same plugin without the rival composes", async () => {
    const io = captureIO();
    expect(await pluginCommand(["check", plugin("trimmer"), "--stack", "test/fixtures/stacks/workspace-only.json", "--json"], io)).toBe(0);
    expect(io.json().ok).toBe(true);
  });

  it("in `lead` it races with every built-in that reads `messages` after the model call", async () => {
    const io = captureIO();
    expect(await pluginCommand(["check", plugin("trimmer"), "--json"], io)).toBe(1);
    const rivals = (io.json().problems as Array<{ code: string; plugins: string[] }>).map((p) => [p.code, p.plugins.find((n) => n !== "trimmer")]);
    expect(rivals).toEqual(
      ["subagents", "batch-leasing", "loop-detection", "finish-reason", "token-budget"].map((name) => ["KEEL_ERR_COMPOSE_RACE", name]),
    );
  });

  it("a stack that already lists the plugin does not get a second copy", async () => {
    const io = captureIO(fixtures);
    expect(await pluginCommand(["check", "plugins/redactor.mjs", "--stack", "stacks/with-redactor.json", "--json"], io)).toBe(0);
    expect(io.json()).toEqual({ ok: true, manifestProblems: [], problems: [] });
  });

  it.each([
    [["check", "test/fixtures/plugins/missing.mjs"], "KEEL_ERR_CLI_FILE"],
    [["check", plugin("no-default-export")], "KEEL_ERR_PLUGIN_MODULE_INVALID"],
    [["check", plugin("audit-log"), "--stack", "nope"], "KEEL_ERR_STACK_NOT_FOUND"],
    [["check"], "KEEL_ERR_CLI_USAGE"],
    [["check", plugin("audit-log"), plugin("trimmer")], "KEEL_ERR_CLI_USAGE"],
    [["audit", plugin("audit-log")], "KEEL_ERR_CLI_USAGE"],
    [[], "KEEL_ERR_CLI_USAGE"],
    [["check", plugin("audit-log"), "--fix"], "KEEL_ERR_CLI_USAGE"],
  ])("%j exits 2 with %s", async (args, code) => {
    const io = captureIO();
    expect(await pluginCommand([...args, "--json"], io)).toBe(2);
    expect(io.json()).toEqual({ ok: false, error: { code, message: expect.any(String) } });
    expect(io.stderr[0]).toMatch(new RegExp(`^${code}: `));
  });

  it("is reachable as `keel plugin check`", async () => {
    const io = captureIO();
    expect(await main(["plugin", "check", plugin("audit-log"), "--json"], io)).toBe(0);
    expect(io.json().ok).toBe(true);
  });
});
