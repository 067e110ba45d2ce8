/**
 * The third-party `tool.response` rewriter (test/fixtures/third-party-plugin) joins the
 * unedited built-in `lead` stack: its `order: "post"` placement makes it the innermost tool
 * wrapper without naming any built-in, so receipts hashes the redacted output the model sees.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compose } from "../../kernel/compose/compose.js";
import { CompositionError } from "../../kernel/errors.js";
import { sha256Hex } from "../../kernel/hashing.js";
import { packageRoot } from "../../kernel/package-root.js";
import type { Plugin } from "../../kernel/plugin/types.js";
import { runScenario } from "../../tools/scenario/run-scenario.js";
import { builtinStackPath, loadPluginModule, loadStack } from "../../tools/stacks/load-stack.js";

const FIXTURE = join(packageRoot(), "test", "fixtures", "third-party-plugin", "redact-emails.mjs");
/** lead's composed order as docs/stacks.md publishes it. */
const LEAD_ORDER = readFileSync(join(packageRoot(), "docs", "stacks.md"), "utf8").match(/## lead\n\nOrder: (.*)\n/)![1]!.replaceAll("`", "").split(" → ");

function withoutPlacement(plugin: Plugin): Plugin {
  const { order: _order, ...wrap } = plugin.manifest.hooks.wrapToolCall!;
  return { ...plugin, manifest: { ...plugin.manifest, hooks: { ...plugin.manifest.hooks, wrapToolCall: wrap } } };
}

describe("third-party tool.response rewriter in the unedited lead stack", () => {
  it("composes as the innermost tool wrapper; the built-ins keep their order and chains", async () => {
    const plugin = await loadPluginModule(FIXTURE);
    const plain = await loadStack("lead");
    const loaded = await loadStack("lead", { plugins: [plugin] });
    expect(loaded.stack.plugins.slice(0, -1)).toEqual(JSON.parse(readFileSync(builtinStackPath("lead"), "utf8")).plugins);
    const base = compose(plain.stack, { plugins: plain.plugins });
    const composition = compose(loaded.stack, { plugins: loaded.plugins });
    expect(base.order).toEqual(LEAD_ORDER);
    expect(composition.order.filter((n) => n !== "redact-emails")).toEqual(base.order);
    expect(composition.hooks.wrapToolCall).toEqual([...base.hooks.wrapToolCall, "redact-emails"]);
    for (const hook of ["beforeAgent", "beforeModel", "wrapModelCall", "afterModel", "afterAgent"] as const) expect(composition.hooks[hook]).toEqual(base.hooks[hook]);
    expect(composition.explain().edges.filter((e) => e.after === "redact-emails").map((e) => e.before).sort()).toEqual([...base.hooks.wrapToolCall].sort());
  });

  it("without its placement the same plugin races with every built-in that reads or writes tool.response (negative control)", async () => {
    const plugin = withoutPlacement(await loadPluginModule(FIXTURE));
    const loaded = await loadStack("lead", { plugins: [plugin] });
    let problems: CompositionError["problems"] = [];
    try {
      compose(loaded.stack, { plugins: loaded.plugins });
    } catch (error) {
      problems = (error as CompositionError).problems;
    }
    // Reported in listing order (lead lists workspace, then sanitize before receipts). Every wrap
    // hook reads its request and response, declared or not: workspace reads the response the
    // rewriter changes, and the rewriter reads the request subagents changes.
    const race = (b: string, channel = "tool.response") => `KEEL_ERR_COMPOSE_RACE ${b},redact-emails ${channel}`;
    expect(problems.map((p) => `${p.code} ${p.plugins.join(",")} ${p.channel}`)).toEqual([
      race("workspace"),
      ...["sanitize", "receipts", "read-before-write", "tool-progress"].map((b) => race(b)),
      race("subagents", "tool.request"),
      race("subagents"),
      race("batch-leasing"),
    ]);
    expect(problems[0]!.fix).toContain("or place the hook with `hooks.wrapToolCall.order`");
  });

  it("receipts hashed the redacted output, which is what the model saw", async () => {
    const plugin = await loadPluginModule(FIXTURE);
    const report = await runScenario(
      {
        contract: "scenario",
        version: 1,
        name: "third-party redaction in lead",
        stack: "lead",
        input: "Who do I write to?",
        workspace: { files: { "contacts.md": "Write to ada@example.com.\n" } },
        agents: { lead: { turns: [{ toolCalls: [{ name: "read_file", args: { path: "contacts.md" } }] }, { content: "Done." }] } },
      },
      { plugins: [plugin] },
    );
    expect(report.outcome.status).toBe("succeeded");
    const tool = report.messages.find((m) => m.role === "tool")!;
    expect(tool.content).toContain("Write to [email redacted].");
    expect(tool.content).not.toContain("ada@example.com");
    const seen = report.modelRequests.find((r) => r.turn === 2)!.messages.find((m) => m.role === "tool")!;
    expect(seen.content).toBe(tool.content);
    const [receipt] = report.receipts.lead as Array<{ outputSha256: string; bytes: number }>;
    expect(receipt!.outputSha256).toBe(sha256Hex(tool.content).slice(0, 16));
    expect(receipt!.bytes).toBe(Buffer.byteLength(tool.content));
  });

  it("`keel compose lead --plugin FILE` composes it", () => {
    const out = execFileSync(process.execPath, [join(packageRoot(), "dist/tools/cli/bin.js"), "compose", "lead", "--plugin", FIXTURE, "--json"], { encoding: "utf8" });
    const doc = JSON.parse(out) as { ok: boolean; hooks: Record<string, string[]> };
    expect(doc.ok).toBe(true);
    expect(doc.hooks.wrapToolCall!.at(-1)).toBe("redact-emails");
    expect(doc.hooks.wrapToolCall![0]).toBe("receipts");
  });
});
