import { AIMessage, RemoveMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { compose } from "../../../kernel/compose/index.js";
import { CompositionError } from "../../../kernel/errors.js";
import { keelMeta } from "../../../kernel/loop/message-meta.js";
import type { StreamEventRecord } from "../../../kernel/loop/run-scope.js";
import { createAgentRuntime } from "../../../kernel/loop/runtime.js";
import { definePlugin } from "../../../kernel/plugin/define-plugin.js";
import type { Plugin } from "../../../kernel/plugin/types.js";
import { ScriptedChatModel, type ScriptedTurn } from "../../../tools/testing/scripted-model.js";
import { createReadBeforeWritePlugin, readBeforeWritePlugin } from "../../../plugins/read-before-write/index.js";
import { workspaceDir, workspacePlugin } from "../../../plugins/workspace/index.js";
import { PluginTester } from "../../../tools/testing/plugin-tester.js";

const threadId = "t-rbw-run";
let root: string;
let dir: string;

beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), "keel-rbw-run-"));
  dir = workspaceDir({ root }, threadId);
  mkdirSync(dir, { recursive: true });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const sha = (text: string) => createHash("sha256").update(text).digest("hex");

async function run(turns: ScriptedTurn[], extra: Plugin[] = [], config: Record<string, Record<string, unknown>> = {}) {
  const composition = compose({ name: "test", plugins: [workspacePlugin, createReadBeforeWritePlugin(), ...extra] }, { config: [{ workspace: { root }, ...config }] });
  const events: StreamEventRecord[] = [];
  const runtime = createAgentRuntime(composition, { model: new ScriptedChatModel({ script: { turns: [...turns, { content: "done" }] } }) });
  const result = await runtime.run({ threadId, runId: "r1", input: "edit the notes", sink: { event: (e) => events.push(e) } });
  const tools = result.messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m));
  return { result, tools, events, composition };
}

const read = (p: string, extra: Record<string, unknown> = {}) => ({ toolCalls: [{ name: "read_file", args: { path: p, ...extra } }] });
const write = (p: string, content: string) => ({ toolCalls: [{ name: "write_file", args: { path: p, content } }] });
const replace = (p: string, oldText: string, newText: string) => ({ toolCalls: [{ name: "str_replace", args: { path: p, oldText, newText } }] });

describe("read-before-write in a run", () => {
  it("passes the manifest audit and declares the workspace port and its ordering", () => {
    expect(new PluginTester().audit(readBeforeWritePlugin)).toEqual([]);
    expect(readBeforeWritePlugin.manifest.requires).toEqual(["workspace"]);
    expect(readBeforeWritePlugin.manifest.requiresBefore).toEqual([
      { name: "workspace", optional: true },
      { name: "receipts", optional: true },
      { name: "sanitize", optional: true },
    ]);
  });

  it("does not compose without the workspace port", () => {
    let error: unknown;
    try {
      compose({ name: "t", plugins: [readBeforeWritePlugin] });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(CompositionError);
    expect((error as CompositionError).problems.map((p) => p.code)).toContain("KEEL_ERR_COMPOSE_MISSING_PORT");
  });

  it("is ordered inside a plugin named receipts that observes tool responses", () => {
    const receipts = definePlugin({
      manifest: { name: "receipts", version: "0.0.1", kind: "middleware", kernel: ">=0.1.0", description: "probe", hooks: { wrapToolCall: { observes: ["tool.response"] } } },
      hooks: { wrapToolCall: (request, next) => next(request) },
    });
    const composition = compose({ name: "t", plugins: [workspacePlugin, readBeforeWritePlugin, receipts] });
    // The workspace plugin also orders itself after receipts (receipts is the outermost tool wrapper).
    expect(composition.hooks.wrapToolCall).toEqual(["receipts", "workspace", "read-before-write"]);
  });

  it("stamps read marks, lets a fresh edit through and refuses the next one until a new read", async () => {
    writeFileSync(path.join(dir, "notes.md"), "a\n");
    const { tools, events } = await run([
      read("./notes.md"),
      replace("notes.md", "a\n", "a\nb\n"),
      replace("notes.md", "b\n", "b\nc\n"),
      read("notes.md", { startLine: 2 }),
      replace("notes.md", "b\n", "b\nc\n"),
    ]);
    expect(tools.map((t) => t.status)).toEqual(["success", "success", "error", "success", "success"]);
    expect(keelMeta(tools[0]!).readMark).toEqual({ path: "notes.md", sha256: sha("a\n") });
    expect(keelMeta(tools[1]!).readMark).toBeUndefined();
    expect(tools[2]!.content).toContain("`notes.md` changed since your last read_file of it");
    // A ranged read marks the whole file's hash.
    expect(tools[3]!.content).toBe("b\n");
    expect(keelMeta(tools[3]!).readMark).toEqual({ path: "notes.md", sha256: sha("a\nb\n") });
    expect(readFileSync(path.join(dir, "notes.md"), "utf8")).toBe("a\nb\nc\n");
    const guardEvents = events.filter((e) => e.event === "guard").map((e) => e.data);
    expect(guardEvents).toEqual([
      { plugin: "read-before-write", agent: "lead", action: "refuse", reason: "read_before_write", detail: "str_replace notes.md: file changed since the newest read" },
    ]);
  });

  it("lets a new file be created, then wants a read before it is overwritten", async () => {
    const { tools } = await run([write("out/new.md", "v1"), write("out/new.md", "v2"), read("out/new.md"), write("out/new.md", "v3")]);
    expect(tools.map((t) => t.status)).toEqual(["success", "error", "success", "success"]);
    expect(tools[1]!.content).toContain("`out/new.md` already exists and there is no read_file of it");
    expect(readFileSync(path.join(dir, "out/new.md"), "utf8")).toBe("v3");
  });

  it("fails open: the tool reports what it cannot do", async () => {
    mkdirSync(path.join(dir, "adir"));
    const { tools } = await run([write("adir", "x"), replace("missing.md", "a", "b"), write("../escape.md", "x")]);
    expect(tools.map((t) => [t.status, t.content])).toEqual([
      ["error", "`adir` is a directory"],
      ["error", "`missing.md` does not exist"],
      ["error", expect.stringMatching(/^KEEL_ERR_WORKSPACE_ESCAPE: /)],
    ]);
  });

  it("refuses an edit whose read was compacted away", async () => {
    /** Simulated compaction: drops every read_file exchange before each model call. */
    const compactor = definePlugin({
      manifest: {
        name: "compactor",
        version: "0.0.1",
        kind: "middleware",
        kernel: ">=0.1.0",
        description: "drops read_file exchanges (probe)",
        hooks: { beforeModel: { mutates: ["messages"] } },
      },
      hooks: {
        beforeModel: (state) => {
          const messages = state.messages as BaseMessage[];
          const readIds = new Set(
            messages.flatMap((m) => (AIMessage.isInstance(m) ? (m.tool_calls ?? []).filter((c) => c.name === "read_file").map((c) => c.id) : [])),
          );
          const drop = messages.filter((m) => (AIMessage.isInstance(m) && (m.tool_calls ?? []).some((c) => readIds.has(c.id))) || (ToolMessage.isInstance(m) && readIds.has(m.tool_call_id)));
          return drop.length > 0 ? { messages: drop.map((m) => new RemoveMessage({ id: m.id! })) } : undefined;
        },
      },
    });
    writeFileSync(path.join(dir, "notes.md"), "a\n");
    const kept = await run([read("notes.md"), write("notes.md", "b\n")]);
    expect(kept.tools.map((t) => t.status)).toEqual(["success", "success"]);

    writeFileSync(path.join(dir, "notes.md"), "a\n");
    const compacted = await run([read("notes.md"), write("notes.md", "b\n")], [compactor]);
    expect(compacted.result.messages.some((m) => m.name === "read_file" || keelMeta(m).readMark)).toBe(false);
    expect(compacted.tools.map((t) => t.status)).toEqual(["error"]);
    expect(compacted.tools[0]!.content).toContain("there is no read_file of it in this conversation (or that read was compacted away)");
    expect(readFileSync(path.join(dir, "notes.md"), "utf8")).toBe("a\n");
  });

  it("enabled: false turns the guard off", async () => {
    writeFileSync(path.join(dir, "notes.md"), "a\n");
    const { tools } = await run([write("notes.md", "b\n"), write("notes.md", "c\n")], [], { "read-before-write": { enabled: false } });
    expect(tools.map((t) => t.status)).toEqual(["success", "success"]);
    expect(readFileSync(path.join(dir, "notes.md"), "utf8")).toBe("c\n");
  });
});
