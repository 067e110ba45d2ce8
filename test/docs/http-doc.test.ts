/**
 * docs/http.md names every route the gateway registers and every method of the SDK's five
 * clients: the routes are asked of Fastify on a real gateway built with every optional part
 * that adds routes (a cron store, metrics), the methods read from the SDK client's own
 * prototypes (as test/e2e/sdk-two-workers.int.test.ts does). A route or a method a change adds
 * fails here until the page documents it. The page's differences table parses too.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sdkMethods } from "../sdk-methods.js";
import { packageRoot } from "../../kernel/package-root.js";
import { MemoryCronStore } from "../../kernel/runs/cron-memory-store.js";
import { MemoryStreamBridge } from "../../kernel/runs/memory-bridge.js";
import { MemoryRunStore } from "../../kernel/runs/memory-store.js";
import { RunManager } from "../../kernel/runs/run-manager.js";
import { ApiKeys, createGateway, type GatewayApp } from "../../plugins/gateway/index.js";
import { differenceRows } from "../differential/differences-table.js";
import { ScriptedExecutor } from "../plugins/gateway/harness.js";

const HTTP_DOC = readFileSync(join(packageRoot(), "docs", "http.md"), "utf8");

/** `METHOD /path` for every route of Fastify's route tree (`printRoutes({ commonPrefix: false })`), HEAD left out where GET is served. */
export function routesOfTree(tree: string): string[] {
  const stack: Array<{ depth: number; path: string }> = [];
  const routes: string[] = [];
  for (const line of tree.split("\n")) {
    const node = /^([\s│]*)(?:├── |└── )(\S+)(?: \(([^)]+)\))?\s*$/u.exec(line);
    if (!node) continue;
    const depth = node[1]!.length / 4;
    while (stack.length > 0 && stack.at(-1)!.depth >= depth) stack.pop();
    const path = (stack.at(-1)?.path ?? "") + node[2]!;
    stack.push({ depth, path });
    const methods = (node[3] ?? "").split(",").map((m) => m.trim()).filter(Boolean);
    for (const method of methods) if (method !== "HEAD" || !methods.includes("GET")) routes.push(`${method} ${path.replace(/^\/\//, "/")}`);
  }
  return routes;
}


/** The routes docs/http.md names as `` `METHOD /path` `` (the form its route table uses). */
function documentedRoutes(markdown: string): Set<string> {
  return new Set([...markdown.matchAll(/`(GET|POST|PUT|PATCH|DELETE) (\/[^`\s]*)`/g)].map((m) => `${m[1]} ${m[2]}`));
}

/** Whether docs/http.md names `client.method` as `` `client.method` `` or `` `client.method(…` ``. */
function documentsMethod(markdown: string, method: string): boolean {
  return new RegExp("`" + method.replace(".", "\\.") + "[`(]").test(markdown);
}

describe("docs/http.md covers the HTTP surface", () => {
  let app: GatewayApp;
  let runs: RunManager;
  let routes: string[];
  beforeAll(async () => {
    const store = new MemoryRunStore();
    const bridge = new MemoryStreamBridge();
    runs = new RunManager({ store, bridge, executor: new ScriptedExecutor(), log: () => undefined });
    const metrics = { contentType: "text/plain", render: async () => "" };
    app = await createGateway({ deps: { runs, store, bridge, crons: new MemoryCronStore() }, apiKeys: new ApiKeys(), stacks: ["lead"], version: "0.0.0-docs", metrics });
    await app.ready();
    routes = routesOfTree(app.printRoutes({ commonPrefix: false }));
  });
  afterAll(async () => {
    await runs?.shutdown();
    await app?.close();
  });

  it("reads the gateway's routes from Fastify (each one a route Fastify has)", () => {
    expect(routes.length).toBeGreaterThan(60);
    for (const route of routes) {
      const [method, url] = route.split(" ") as [string, string];
      expect(app.hasRoute({ method: method as "GET", url }), route).toBe(true);
    }
    expect(routes).toEqual(expect.arrayContaining(["GET /ok", "POST /threads/:tid/runs/stream", "PATCH /runs/crons/:cron_id", "PUT /store/items", "GET /keel/feed", "GET /"]));
  });

  it("every route the gateway registers is in docs/http.md", () => {
    const documented = documentedRoutes(HTTP_DOC);
    expect(routes.filter((route) => !documented.has(route))).toEqual([]);
  });

  it("every route docs/http.md's route table lists is one the gateway registers", () => {
    const table = HTTP_DOC.slice(HTTP_DOC.indexOf("\n## Routes"), HTTP_DOC.indexOf("\n## ", HTTP_DOC.indexOf("\n## Routes") + 1));
    expect([...documentedRoutes(table)].filter((route) => !routes.includes(route))).toEqual([]);
  });

  it("every method of the SDK's assistants, threads, runs, store and crons clients is in docs/http.md", () => {
    const methods = sdkMethods();
    expect(methods.length).toBeGreaterThan(40);
    expect(methods.filter((method) => !documentsMethod(HTTP_DOC, method))).toEqual([]);
  });

  it("the differences table parses: five cells a row, unique ids", () => {
    const rows = differenceRows(HTTP_DOC);
    expect(rows.length).toBeGreaterThan(15);
    expect(rows.map((r) => r.id)).toEqual([...new Set(rows.map((r) => r.id))]);
    expect(rows.find((r) => r.id === "S2")?.keel).toMatch(/`end`/);
  });
});

describe("the checks bite", () => {
  it("a route missing from the page, or a method, is found", () => {
    expect(routesOfTree("└── / (GET, HEAD)\n    ├── ok (GET, HEAD)\n    └── threads (POST)\n        └── /:tid (GET, HEAD, DELETE)\n            └── /copy (POST)\n    └── store/items (PUT, HEAD)\n")).toEqual([
      "GET /",
      "GET /ok",
      "POST /threads",
      "GET /threads/:tid",
      "DELETE /threads/:tid",
      "POST /threads/:tid/copy",
      "PUT /store/items",
      "HEAD /store/items",
    ]);
    const page = "| `GET /ok` | — |\n| `POST /threads` | `threads.create` |\n`runs.wait(threadId, …)`";
    expect([...documentedRoutes(page)]).toEqual(["GET /ok", "POST /threads"]);
    expect(documentsMethod(page, "threads.create")).toBe(true);
    expect(documentsMethod(page, "runs.wait")).toBe(true);
    expect(documentsMethod(page, "threads.copy")).toBe(false);
    expect(documentsMethod("`threads.createX`", "threads.create")).toBe(false);
  });

  it("a differences table without its markers, its header or with a broken row is refused", () => {
    expect(() => differenceRows("| id | where | Keel | LangGraph | why |")).toThrow(/markers|differences:start/);
    expect(() => differenceRows("<!-- differences:start -->\n| id | where |\n|---|---|\n<!-- differences:end -->")).toThrow(/must start with/);
    expect(() => differenceRows("<!-- differences:start -->\n| id | where | Keel | LangGraph | why |\n|---|---|---|---|---|\n| D1 | a | b | c |\n<!-- differences:end -->")).toThrow(/five cells/);
    expect(differenceRows("<!-- differences:start -->\n| id | where | Keel | LangGraph | why |\n|---|---|---|---|---|\n| D1 | `a\\|b` | k | l | w |\n<!-- differences:end -->")).toEqual([{ id: "D1", where: "`a\\|b`", keel: "k", langgraph: "l", why: "w" }]);
  });
});
