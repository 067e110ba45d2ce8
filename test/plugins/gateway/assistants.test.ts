import * as uuid from "@langchain/core/utils/uuid";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { failure, startAssistantsServer, type AssistantsServer } from "./assistants-harness.js";

/** LangGraph's id of a graph's system assistant, computed as `@langchain/langgraph-api` does. */
const langgraphId = (graphId: string) => uuid.v5(graphId, uuid.parse("6ba7b821-9dad-11d1-80b4-00c04fd430c8"));

type Outcome = { status: string; stopReasons: { reason: string; by: string }[] };

describe("assistants through @langchain/langgraph-sdk", () => {
  let server: AssistantsServer;
  beforeAll(async () => {
    server = await startAssistantsServer();
  }, 30_000);
  afterAll(async () => server?.close());

  describe("system assistants", () => {
    it("every served stack is one: id = graph_id = name = the stack, created_by system, version 1", async () => {
      const found = await server.alice.assistants.search({ metadata: { created_by: "system" }, sortBy: "assistant_id", sortOrder: "asc" });
      expect(found.map((a) => [a.assistant_id, a.graph_id, a.name, a.version])).toEqual([
        ["lead", "lead", "lead", 1],
        ["subagent", "subagent", "subagent", 1],
      ]);
      expect(found[0]).toMatchObject({ metadata: { created_by: "system" }, config: {}, context: {}, description: "The top agent's stack (docs/stacks.md)." });
    });

    it("get by the stack name and by LangGraph's uuid5 alias of the graph id", async () => {
      expect(langgraphId("lead")).toBe("b3a34b53-aa4e-5d22-9df5-b387e486024a");
      const byName = await server.alice.assistants.get("lead");
      const byAlias = await server.bob.assistants.get(langgraphId("lead"));
      expect(byAlias).toEqual(byName);
      expect(byName.assistant_id).toBe("lead");
    });

    it("are read-only: update, setLatest and delete answer 409 KEEL_ERR_HTTP_ASSISTANT_READ_ONLY", async () => {
      const calls = [() => server.alice.assistants.update("lead", { name: "x" }), () => server.alice.assistants.setLatest("lead", 1), () => server.alice.assistants.delete(langgraphId("lead"))];
      for (const call of calls) {
        const { status, body } = await failure(call());
        expect(status).toBe(409);
        expect(body.error).toBe("KEEL_ERR_HTTP_ASSISTANT_READ_ONLY");
      }
    });

    it("getVersions answers the one version", async () => {
      const versions = await server.alice.assistants.getVersions("subagent");
      expect(versions.map((v) => [v.assistant_id, v.version, v.graph_id])).toEqual([["subagent", 1, "subagent"]]);
    });
  });

  describe("create / get", () => {
    it("creates a user assistant with LangGraph's defaults (name Untitled, description null, version 1) that only its creator sees", async () => {
      const created = await server.alice.assistants.create({ graphId: "lead", metadata: { team: "a" }, context: { maxTurns: 12 } });
      expect(created).toMatchObject({ graph_id: "lead", name: "Untitled", description: null, version: 1, metadata: { team: "a" }, context: { maxTurns: 12 }, config: {} });
      expect(created.assistant_id).toMatch(/^[0-9a-f-]{36}$/);
      expect(created.created_at).toBe(created.updated_at);
      expect(await server.alice.assistants.get(created.assistant_id)).toEqual(created);
      const foreign = await failure(server.bob.assistants.get(created.assistant_id));
      expect(foreign).toMatchObject({ status: 404, body: { error: "KEEL_ERR_HTTP_NOT_FOUND" } });
      expect((await server.bob.assistants.search({ metadata: { team: "a" } })).length).toBe(0);
    });

    it("keeps name, description and config; an id that exists is 409 unless if_exists do_nothing (for its owner)", async () => {
      const first = await server.alice.assistants.create({ graphId: "subagent", assistantId: "alice-helper", name: "Helper", description: "helps", config: { tags: ["t"], configurable: { x: 1 } } });
      expect(first).toMatchObject({ assistant_id: "alice-helper", name: "Helper", description: "helps", config: { tags: ["t"], configurable: { x: 1 } } });
      expect(await failure(server.alice.assistants.create({ graphId: "lead", assistantId: "alice-helper" }))).toMatchObject({ status: 409, body: { error: "KEEL_ERR_HTTP_ASSISTANT_EXISTS", pointer: "/assistant_id" } });
      expect(await server.alice.assistants.create({ graphId: "lead", assistantId: "alice-helper", ifExists: "do_nothing" })).toEqual(first);
      expect((await failure(server.bob.assistants.create({ graphId: "lead", assistantId: "alice-helper", ifExists: "do_nothing" }))).status).toBe(409);
      expect((await failure(server.alice.assistants.create({ graphId: "lead", assistantId: "lead" }))).body.error).toBe("KEEL_ERR_HTTP_ASSISTANT_EXISTS");
      expect((await failure(server.alice.assistants.create({ graphId: "lead", assistantId: langgraphId("subagent") }))).status).toBe(409);
    });

    it.each([
      [{ graphId: "nope" }, "/graph_id"],
      [{ graphId: "lead", context: { plugins: { receipts: { render: 5 } } } }, "/context/plugins/receipts/render"],
      [{ graphId: "lead", context: { plugins: { "not-in-stack": {} } } }, "/context/plugins/not-in-stack"],
      [{ graphId: "lead", context: { plugins: { "token-budget": { limit: 0 } } } }, "/context/plugins/token-budget/limit"],
      [{ graphId: "lead", context: { plugins: { workspace: { root: "/" } } } }, "/context/plugins/workspace/root"],
      [{ graphId: "lead", context: { plugins: { workspace: { bash: "on" } } } }, "/context/plugins/workspace/bash"],
      [{ graphId: "lead", context: { maxTurns: 0 } }, "/context/maxTurns"],
      [{ graphId: "lead", context: { model: "openai:gpt-4o" } }, "/context/model"],
      [{ graphId: "lead", config: { recursion_limit: "many" } }, "/config/recursion_limit"],
      [{ graphId: "lead", ifExists: "replace" }, "/if_exists"],
    ])("refuses bad options at create time: %j → 400 at %s", async (payload, pointer) => {
      const { status, body } = await failure(server.alice.assistants.create(payload as never));
      expect(status).toBe(400);
      expect(body).toMatchObject({ error: "KEEL_ERR_HTTP_INVALID_BODY", pointer });
    });

    it("an empty name becomes the graph id, as on LangGraph", async () => {
      expect((await server.alice.assistants.create({ graphId: "subagent", name: "" })).name).toBe("subagent");
    });

    it("accepts options the stack's plugins take, over the stack file's", async () => {
      const created = await server.alice.assistants.create({ graphId: "lead", context: { plugins: { receipts: { render: "always" }, "token-budget": { limit: 5000 } }, model: "demo" } });
      expect(created.context).toEqual({ plugins: { receipts: { render: "always" }, "token-budget": { limit: 5000 } }, model: "demo" });
    });
  });

  describe("update / getVersions / setLatest / delete", () => {
    it("PATCH writes a new version: metadata merged, other fields replaced when given, options checked", async () => {
      const a = await server.alice.assistants.create({ graphId: "lead", name: "v1", metadata: { keep: 1, change: "old" }, context: { maxTurns: 5 } });
      const b = await server.alice.assistants.update(a.assistant_id, { name: "v2", metadata: { change: "new" } });
      expect(b).toMatchObject({ assistant_id: a.assistant_id, version: 2, name: "v2", metadata: { keep: 1, change: "new" }, context: { maxTurns: 5 }, created_at: a.created_at });
      const c = await server.alice.assistants.update(a.assistant_id, { context: { plugins: { "loop-detection": {} } }, graphId: "subagent" });
      expect(c).toMatchObject({ version: 3, graph_id: "subagent", name: "v2", context: { plugins: { "loop-detection": {} } } });
      const bad = await failure(server.alice.assistants.update(a.assistant_id, { context: { plugins: { receipts: { render: "sometimes" } } } }));
      expect(bad).toMatchObject({ status: 400, body: { pointer: "/context/plugins/receipts/render" } });
      // The subagent stack has no `subagents` plugin: moving a lead-only option onto it is refused.
      const moved = await server.alice.assistants.create({ graphId: "lead", context: { plugins: { subagents: {} } } });
      expect((await failure(server.alice.assistants.update(moved.assistant_id, { graphId: "subagent" }))).body.pointer).toBe("/graph_id");
      expect((await failure(server.bob.assistants.update(a.assistant_id, { name: "mine" }))).status).toBe(404);

      const versions = await server.alice.assistants.getVersions(a.assistant_id);
      expect(versions.map((v) => [v.version, v.name, v.graph_id])).toEqual([
        [3, "v2", "subagent"],
        [2, "v2", "lead"],
        [1, "v1", "lead"],
      ]);
      expect((await server.alice.assistants.getVersions(a.assistant_id, { metadata: { change: "old" } })).map((v) => v.version)).toEqual([1]);
      expect((await server.alice.assistants.getVersions(a.assistant_id, { limit: 1, offset: 1 })).map((v) => v.version)).toEqual([2]);
      expect((await failure(server.bob.assistants.getVersions(a.assistant_id))).status).toBe(404);

      const back = await server.alice.assistants.setLatest(a.assistant_id, 1);
      expect(back).toMatchObject({ version: 1, name: "v1", graph_id: "lead", metadata: { keep: 1, change: "old" }, context: { maxTurns: 5 } });
      expect(await server.alice.assistants.get(a.assistant_id)).toMatchObject({ version: 1, name: "v1" });
      // A later update still takes the next number after the highest.
      expect((await server.alice.assistants.update(a.assistant_id, { name: "v4" })).version).toBe(4);
      expect(await failure(server.alice.assistants.setLatest(a.assistant_id, 9))).toMatchObject({ status: 404, body: { pointer: "/version" } });
      expect((await failure(server.bob.assistants.setLatest(a.assistant_id, 1))).status).toBe(404);
    });

    it("delete removes the assistant and its versions, only for its owner; delete_threads removes the caller's threads of it", async () => {
      const a = await server.alice.assistants.create({ graphId: "lead" });
      expect((await failure(server.bob.assistants.delete(a.assistant_id))).status).toBe(404);
      const tagged = await server.alice.threads.create({ metadata: { assistant_id: a.assistant_id } });
      const other = await server.alice.threads.create({ metadata: { assistant_id: "someone-else" } });
      await server.alice.assistants.delete(a.assistant_id, { deleteThreads: true });
      expect((await failure(server.alice.assistants.get(a.assistant_id))).status).toBe(404);
      expect((await failure(server.alice.assistants.getVersions(a.assistant_id))).status).toBe(404);
      expect((await failure(server.alice.threads.get(tagged.thread_id))).status).toBe(404);
      expect((await server.alice.threads.get(other.thread_id)).thread_id).toBe(other.thread_id);

      const kept = await server.alice.assistants.create({ graphId: "lead" });
      const thread = await server.alice.threads.create({ metadata: { assistant_id: kept.assistant_id } });
      await server.alice.assistants.delete(kept.assistant_id);
      expect((await server.alice.threads.get(thread.thread_id)).thread_id).toBe(thread.thread_id);
    });
  });

  describe("search / count", () => {
    let ids: Record<string, string>;
    beforeAll(async () => {
      ids = {};
      for (const [name, graphId, tier] of [
        ["Alpha Writer", "lead", "gold"],
        ["beta writer", "subagent", "gold"],
        ["Gamma", "lead", "silver"],
      ] as const) {
        ids[name] = (await server.alice.assistants.create({ graphId, name, metadata: { suite: "search", tier } })).assistant_id;
      }
      await server.bob.assistants.create({ graphId: "lead", name: "Bob Writer", metadata: { suite: "search", tier: "gold" } });
    });

    it("filters by graph_id, metadata and a case-insensitive substring of the name; only the caller's and the system's", async () => {
      const names = async (query: Parameters<AssistantsServer["alice"]["assistants"]["search"]>[0]) => (await server.alice.assistants.search({ ...query, sortBy: "name", sortOrder: "asc" })).map((a) => a.name);
      expect(await names({ metadata: { suite: "search" } })).toEqual(["Alpha Writer", "Gamma", "beta writer"]);
      expect(await names({ metadata: { suite: "search", tier: "gold" } })).toEqual(["Alpha Writer", "beta writer"]);
      expect(await names({ metadata: { suite: "search" }, graphId: "lead" })).toEqual(["Alpha Writer", "Gamma"]);
      expect(await names({ name: "WRITER" })).toEqual(["Alpha Writer", "beta writer"]);
      expect(await names({ name: "lea" })).toEqual(["lead"]);
      expect(await names({ name: "%" })).toEqual([]);
    });

    it("sorts by sort_by / sort_order (default created_at desc), pages with limit/offset and X-Pagination headers, and selects fields", async () => {
      const byDefault = await server.alice.assistants.search({ metadata: { suite: "search" } });
      expect(byDefault.map((a) => a.name)).toEqual(["Gamma", "beta writer", "Alpha Writer"]);
      const asc = await server.alice.assistants.search({ metadata: { suite: "search" }, sortBy: "created_at", sortOrder: "asc" });
      expect(asc.map((a) => a.name)).toEqual(["Alpha Writer", "beta writer", "Gamma"]);
      const byGraph = await server.alice.assistants.search({ metadata: { suite: "search" }, sortBy: "graph_id", sortOrder: "desc" });
      expect(byGraph.map((a) => a.graph_id)).toEqual(["subagent", "lead", "lead"]);
      const page = await server.alice.assistants.search({ metadata: { suite: "search" }, sortBy: "name", sortOrder: "asc", limit: 2, offset: 1, includePagination: true });
      expect(page.assistants.map((a) => a.name)).toEqual(["Gamma", "beta writer"]);
      expect(page.next).toBeNull();
      const first = await server.alice.assistants.search({ metadata: { suite: "search" }, sortBy: "name", sortOrder: "asc", limit: 2, includePagination: true });
      expect(first.next).toBe("2");
      const selected = await server.alice.assistants.search({ metadata: { suite: "search" }, sortBy: "name", select: ["assistant_id", "name"], limit: 1, sortOrder: "asc" });
      expect(selected).toEqual([{ assistant_id: ids["Alpha Writer"], name: "Alpha Writer" }]);
      // System and user assistants page as one list (names with an "a", by name: uppercase first).
      const mixed = await server.alice.assistants.search({ name: "a", sortBy: "name", sortOrder: "asc", limit: 3, offset: 1 });
      expect(mixed.map((a) => a.name)).toEqual(["Gamma", "beta writer", "lead"]);
    });

    it("count counts with the same filters", async () => {
      expect(await server.alice.assistants.count({ metadata: { suite: "search" } })).toBe(3);
      expect(await server.alice.assistants.count({ metadata: { suite: "search" }, graphId: "subagent" })).toBe(1);
      expect(await server.alice.assistants.count({ name: "writer" })).toBe(2);
      expect(await server.bob.assistants.count({ name: "writer" })).toBe(1);
      expect(await server.bob.assistants.count({ metadata: { created_by: "system" } })).toBe(2);
    });

    it.each([
      [{ sortBy: "colour" }, "/sort_by"],
      [{ sortOrder: "up" }, "/sort_order"],
      [{ select: ["bogus"] }, "/select/0"],
      [{ limit: 0 }, "/limit"],
      [{ offset: -1 }, "/offset"],
    ])("refuses bad search input %j → 400 at %s", async (query, pointer) => {
      expect(await failure(server.alice.assistants.search(query as never))).toMatchObject({ status: 400, body: { error: "KEEL_ERR_HTTP_INVALID_BODY", pointer } });
    });
  });

  describe("getGraph / getSchemas / getSubgraphs", () => {
    it("getGraph answers the loop's nodes and edges; xray adds the subagent's loop under `subagent:`", async () => {
      const graph = await server.alice.assistants.getGraph("lead");
      expect(graph.nodes.map((n) => n.id)).toEqual(["__start__", "agent", "tools", "__end__"]);
      expect(graph.edges).toContainEqual({ source: "__start__", target: "agent", conditional: false });
      expect(graph.edges).toContainEqual({ source: "agent", target: "tools", conditional: true });
      const xray = await server.alice.assistants.getGraph("lead", { xray: true });
      expect(xray.nodes.map((n) => n.id)).toEqual(["__start__", "agent", "tools", "__end__", "subagent:__start__", "subagent:agent", "subagent:tools", "subagent:__end__"]);
      expect(xray.edges).toContainEqual({ source: "tools", target: "subagent:__start__", conditional: true });
      expect(xray.edges).toContainEqual({ source: "subagent:agent", target: "subagent:tools", conditional: true });
      expect((await server.alice.assistants.getGraph("lead", { xray: 1 })).nodes).toHaveLength(8);
      // The subagent stack delegates to nobody: xray adds nothing.
      expect((await server.alice.assistants.getGraph("subagent", { xray: 1 })).nodes.map((n) => n.id)).toEqual(["__start__", "agent", "tools", "__end__"]);
      const mine = await server.alice.assistants.create({ graphId: "lead" });
      expect((await server.alice.assistants.getGraph(mine.assistant_id, { xray: true })).nodes).toHaveLength(8);
      expect((await failure(server.bob.assistants.getGraph(mine.assistant_id))).status).toBe(404);
    });

    it("getSchemas: input, state/output (the stack's channels) and the config schema of the composed stack with every plugin's options and defaults", async () => {
      const schemas = await server.alice.assistants.getSchemas("lead");
      expect(schemas.graph_id).toBe("lead");
      expect(Object.keys(schemas.state_schema!.properties as object)).toEqual(expect.arrayContaining(["messages", "receipts", "delegations", "stopReasons"]));
      expect(schemas.output_schema).toEqual(schemas.state_schema);
      expect(schemas.input_schema).toMatchObject({ anyOf: [{ type: "string" }, { required: ["messages"] }] });
      const config = schemas.config_schema as { properties: { plugins: { properties: Record<string, { default: Record<string, unknown>; properties: Record<string, { default?: unknown }> }> }; maxTurns: { maximum: number } } };
      const plugins = config.properties.plugins.properties;
      expect(Object.keys(plugins).sort()).toEqual(["workspace", "sanitize", "error-fallback", "receipts", "read-before-write", "tool-progress", "subagents", "batch-leasing", "durable-context", "summarization", "loop-detection", "finish-reason", "token-budget", "acceptance", "message-coalescing"].sort());
      // The stack file's `render: delegation_only` over the plugin's own default; the token budget's own default.
      expect(plugins.receipts!.properties.render!.default).toBe("delegation_only");
      expect(plugins["token-budget"]!.default).toMatchObject({ limit: 200000, enabled: true });
      // What the server sets is not an option (and its workspace path is not shown).
      expect(plugins.workspace!.properties.root).toBeUndefined();
      expect(JSON.stringify(plugins.workspace)).not.toContain("keel-assistants-");
      expect(config.properties.maxTurns.maximum).toBe(40);
      expect(schemas.context_schema).toEqual(schemas.config_schema);

      const mine = await server.alice.assistants.create({ graphId: "lead", context: { plugins: { "token-budget": { limit: 777 } } } });
      const own = (await server.alice.assistants.getSchemas(mine.assistant_id)).config_schema as typeof config;
      expect(own.properties.plugins.properties["token-budget"]!.properties.limit!.default).toBe(777);
    });

    it("getSubgraphs: the lead's subagent stack by namespace; none for the subagent stack", async () => {
      const subgraphs = await server.alice.assistants.getSubgraphs("lead");
      expect(Object.keys(subgraphs)).toEqual(["subagent"]);
      expect(subgraphs.subagent!.graph_id).toBe("subagent");
      expect(Object.keys((subgraphs.subagent as { state_schema: { properties: object } }).state_schema.properties)).toContain("messages");
      expect(await server.alice.assistants.getSubgraphs("lead", { namespace: "subagent", recurse: true })).toEqual(subgraphs);
      expect(await server.alice.assistants.getSubgraphs("lead", { namespace: "elsewhere" })).toEqual({});
      expect(await server.alice.assistants.getSubgraphs("subagent")).toEqual({});
    });
  });

  describe("runs with an assistant (stack file < assistant < request)", () => {
    const wait = async (assistantId: string, extra: Record<string, unknown> = {}) => {
      const thread = await server.alice.threads.create();
      const values = (await server.alice.runs.wait(thread.thread_id, assistantId, { input: "Add the helper.", raiseError: false, ...extra } as never)) as { outcome: Outcome };
      const [run] = await server.alice.runs.list(thread.thread_id);
      return { outcome: values.outcome, run: run! };
    };

    it("a run uses its assistant's plugin options; the request's override the assistant's", async () => {
      const plain = await wait("lead");
      expect(plain.outcome.status).toBe("succeeded");
      const capped = await server.alice.assistants.create({ graphId: "lead", context: { plugins: { "token-budget": { limit: 50 } } } });
      const byAssistant = await wait(capped.assistant_id);
      expect(byAssistant.outcome.stopReasons.map((s) => s.reason)).toContain("token_capped");
      expect(byAssistant.run.assistant_id).toBe(capped.assistant_id);
      const lifted = await wait(capped.assistant_id, { context: { plugins: { "token-budget": { limit: 1000000 } } } });
      expect(lifted.outcome.status).toBe("succeeded");
      // The run's kwargs show the merged, checked options once, under `configurable`.
      expect(lifted.run.kwargs.config).toMatchObject({ configurable: { keel_plugin_options: { "token-budget": { limit: 1000000 } } } });
      expect(lifted.run.kwargs.context).not.toHaveProperty("plugins");
      // A request alone can set plugin options on a system assistant too.
      expect((await wait("lead", { context: { plugins: { "token-budget": { limit: 50 } } } })).outcome.stopReasons.map((s) => s.reason)).toContain("token_capped");
    });

    it("a caller cannot pass unchecked plugin options through config.configurable.keel_plugin_options", async () => {
      const forged = await wait("lead", { config: { configurable: { keel_plugin_options: { "token-budget": { limit: 50 } } } } });
      expect(forged.outcome.status).toBe("succeeded");
      expect((forged.run.kwargs.config as { configurable: Record<string, unknown> }).configurable).not.toHaveProperty("keel_plugin_options");
    });

    it("the assistant's maxTurns and config reach the run unless the request sets them", async () => {
      const a = await server.alice.assistants.create({ graphId: "lead", context: { maxTurns: 1 }, config: { tags: ["from-assistant"], configurable: { a: 1, b: 1 } } });
      const short = await wait(a.assistant_id, { config: { configurable: { b: 2 } } });
      expect(short.run.kwargs).toMatchObject({ max_turns: 1, config: { tags: ["from-assistant"], configurable: { a: 1, b: 2 } } });
      expect(short.outcome.stopReasons.map((s) => s.reason)).toContain("turn_capped");
      const longer = await wait(a.assistant_id, { context: { max_turns: 30 } });
      expect(longer.run.kwargs).toMatchObject({ max_turns: 30 });
      expect(longer.outcome.status).toBe("succeeded");
    });

    it("the uuid alias runs the stack (the run records the stack name); another user's assistant is a 404; bad request options a 400", async () => {
      const alias = await wait(langgraphId("lead"));
      expect(alias.run.assistant_id).toBe("lead");
      const mine = await server.alice.assistants.create({ graphId: "lead" });
      const thread = await server.bob.threads.create();
      expect(await failure(server.bob.runs.create(thread.thread_id, mine.assistant_id, { input: "hi" }))).toMatchObject({ status: 404, body: { error: "KEEL_ERR_HTTP_NOT_FOUND" } });
      const own = await server.alice.threads.create();
      const bad = await failure(server.alice.runs.create(own.thread_id, mine.assistant_id, { input: "hi", context: { plugins: { receipts: { render: 1 } } } } as never));
      expect(bad).toMatchObject({ status: 400, body: { error: "KEEL_ERR_HTTP_INVALID_BODY", pointer: "/context/plugins/receipts/render" } });
      const forged = await failure(server.alice.runs.create(own.thread_id, "lead", { input: "hi", context: { plugins: { workspace: { root: "/tmp" } } } } as never));
      expect(forged.body.pointer).toBe("/context/plugins/workspace/root");
      expect(await server.alice.runs.list(own.thread_id)).toEqual([]);
    });
  });
});
