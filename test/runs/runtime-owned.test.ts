import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemorySaver } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { compose } from "../../kernel/compose/index.js";
import { runtimeOwnedChannels, runtimeOwnedKeys } from "../../kernel/compose/runtime-owned.js";
import { definePlugin } from "../../kernel/plugin/define-plugin.js";
import { MemoryRunStore } from "../../kernel/runs/memory-store.js";
import { sanitizeRunRequest } from "../../kernel/runs/request-hygiene.js";
import { loadRunModels } from "../../tools/serve/run-models.js";
import { createServeExecutor } from "../../tools/serve/serve-executor.js";
import { builtinRuntimeOwnedKeys } from "./builtin-owned-keys.js";
import { managedSetups, request, until } from "./run-manager-harness.js";

/** A third-party plugin with one runtime-owned channel (an audit ledger) and one ordinary channel. */
const auditLog = definePlugin({
  manifest: {
    name: "audit-log",
    version: "1.0.0",
    kind: "middleware",
    kernel: ">=0.1.0",
    description: "keeps an audit ledger",
    hooks: {},
    channels: {
      auditEntries: { schema: { type: "array" }, reducer: "append", runtimeOwned: true, runtimeOwnedFields: ["signedBy"] },
      auditNotes: { schema: { type: "array" }, reducer: "append" },
    },
  },
});

const { started } = managedSetups();

describe("runtime-owned channels", () => {
  it("the built-in stacks declare today's evidence keys (and the delegation and lease ledgers) as runtime-owned", async () => {
    expect(await builtinRuntimeOwnedKeys()).toEqual([
      "acceptanceVerdict",
      "acceptance_verdict",
      "bashRuns",
      "bash_runs",
      "delegations",
      "leases",
      "receiptCounts",
      "receiptIndex",
      "receiptRun",
      "receiptVerdict",
      "receipt_counts",
      "receipt_index",
      "receipt_run",
      "receipt_verdict",
      "receipts",
    ]);
  });

  it("a composition names its runtime-owned channels from the manifests, nothing else", () => {
    const composition = compose({ name: "third-party", plugins: [auditLog] });
    expect(runtimeOwnedChannels(composition)).toEqual(["auditEntries"]);
    expect(runtimeOwnedKeys([composition])).toEqual(["auditEntries", "audit_entries", "signedBy", "signed_by"]);
    expect(runtimeOwnedKeys([compose({ name: "plain", plugins: [] })])).toEqual([]);
  });

  it("request hygiene strips a third-party runtime-owned channel exactly like the built-in evidence keys", () => {
    const runtimeOwnedKeysOfStack = runtimeOwnedKeys([compose({ name: "third-party", plugins: [auditLog] })]);
    const clean = sanitizeRunRequest(
      {
        assistantId: "lead",
        input: { messages: [{ role: "user", content: "hi" }], auditEntries: [{ forged: true }], auditNotes: ["kept"] },
        metadata: { audit_entries: [1], deep: { signedBy: "me", keep: true } },
        context: { auditEntries: [], ok: 1 },
        config: { metadata: { signed_by: "me", user: "u" } },
      },
      { maxTurns: 100, runtimeOwnedKeys: runtimeOwnedKeysOfStack },
    );
    expect(clean.input).toEqual({ messages: [{ role: "user", content: "hi" }], auditNotes: ["kept"] });
    expect(clean.metadata).toEqual({ deep: { keep: true } });
    expect(clean.context).toEqual({ ok: 1 });
    expect(clean.config).toEqual({ metadata: { user: "u" } });
  });

  it("the RunManager persists and executes the request without the runtime-owned keys it was given", async () => {
    const keys = runtimeOwnedKeys([compose({ name: "third-party", plugins: [auditLog] })]);
    const { manager, store, executor, thread: newThread } = await started({ runtimeOwnedKeys: keys });
    const thread = await newThread();
    const run = await manager.createOrReject(thread, request({ auditEntries: [{ forged: true }], text: "hi" }, { metadata: { signedBy: "me", keep: 1 } }), { user: "alice" });
    const stored = (await store.getRun(run.runId))!.request;
    expect(stored.input).toEqual({ text: "hi" });
    expect(stored.metadata).toEqual({ keep: 1 });
    await until(() => executor.calls.length === 1, "the run to start");
    expect(executor.calls[0]!.run.request).toEqual(stored);
  });

  it("a manifest with runtime-owned fields on a channel that is not runtime-owned is refused", () => {
    const manifest = { ...auditLog.manifest, name: "bad-audit", channels: { notes: { schema: { type: "array" }, reducer: "append" as const, runtimeOwnedFields: ["x"] } } };
    expect(() => definePlugin({ manifest, hooks: {} })).toThrow(expect.objectContaining({ code: "KEEL_ERR_MANIFEST_INVALID", pointer: "/channels/notes/runtimeOwnedFields" }));
  });

  it("without runtime-owned keys a request keeps such keys (the kernel has no list of its own)", () => {
    const clean = sanitizeRunRequest({ assistantId: "lead", input: { receipts: [1] }, metadata: { bashRuns: [] } }, { maxTurns: 100 });
    expect(clean.input).toEqual({ receipts: [1] });
    expect(clean.metadata).toEqual({ bashRuns: [] });
  });

  it("keel serve's executor hands the run manager the runtime-owned keys of every served stack, a stack file's plugin module included", async () => {
    const dir = mkdtempSync(join(tmpdir(), "keel-owned-"));
    try {
      writeFileSync(
        join(dir, "ledger.mjs"),
        `export default { manifest: { name: "ticket-ledger", version: "1.0.0", kind: "middleware", kernel: ">=0.1.0", description: "tickets", hooks: {},
          channels: { ticketLog: { schema: { type: "array" }, reducer: "append", runtimeOwned: true } } }, hooks: {} };`,
      );
      writeFileSync(join(dir, "stack.json"), JSON.stringify({ contract: "stack", version: 1, name: "ticketed", plugins: ["workspace", { module: "./ledger.mjs" }] }));
      const executor = await createServeExecutor({
        stacks: [join(dir, "stack.json")],
        models: await loadRunModels({ kind: "demo" }),
        checkpointer: new MemorySaver(),
        store: new MemoryRunStore(),
        workspaceRoot: join(dir, "ws"),
        bash: "off",
        maxTurns: 10,
      });
      // The lead's own (workspace, ticket-ledger) and its built-in subagent stack's.
      expect(executor.runtimeOwnedKeys).toEqual([
        "bashRuns",
        "bash_runs",
        "receiptCounts",
        "receiptIndex",
        "receiptRun",
        "receipt_counts",
        "receipt_index",
        "receipt_run",
        "receipts",
        "ticketLog",
        "ticket_log",
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
