/**
 * Slow and hostile clients over real HTTP on loopback: raw node:net sockets for
 * slowloris-style headers and bodies, node:http for `Host` headers, fetch for the rest.
 * Every case asserts the status and the coded body; no assertion depends on timing (the
 * server's own short timeouts do the cutting, the test only waits for the outcome).
 */
import { request as httpRequest } from "node:http";
import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemoryRunStore } from "../../../kernel/runs/memory-store.js";
import { MemoryStreamBridge } from "../../../kernel/runs/memory-bridge.js";
import { RunManager } from "../../../kernel/runs/run-manager.js";
import { ApiKeys, createGateway, type GatewayApp } from "../../../plugins/gateway/index.js";
import { DEFAULT_CONNECTION_LIMITS, readConnectionLimits, type ConnectionLimits } from "../../../plugins/gateway/connection-limits.js";
import { assertJsonDepth, isLoopbackHostHeader } from "../../../plugins/gateway/request-guards.js";
import { ALICE, ScriptedExecutor, until } from "./harness.js";

interface Server {
  app: GatewayApp;
  executor: ScriptedExecutor;
  runs: RunManager;
  base: string;
  port: number;
  close(): Promise<void>;
}

async function startServer(options: { limits?: Partial<ConnectionLimits>; keys?: boolean; heartbeatMs?: number; host?: string } = {}): Promise<Server> {
  const store = new MemoryRunStore();
  const bridge = new MemoryStreamBridge();
  const executor = new ScriptedExecutor();
  const runs = new RunManager({ store, bridge, executor, log: () => undefined });
  runs.start();
  const apiKeys = options.keys === false ? new ApiKeys() : new ApiKeys([["key-alice", "alice"]]);
  const app = await createGateway({
    deps: { runs, store, bridge },
    apiKeys,
    stacks: ["lead"],
    version: "9.9.9-test",
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.heartbeatMs ? { heartbeatMs: options.heartbeatMs } : {}),
  });
  const host = options.host ?? "127.0.0.1";
  await app.listen({ port: 0, host });
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    app,
    executor,
    runs,
    port,
    base: `http://${host.includes(":") ? `[${host}]` : host}:${port}`,
    async close() {
      await runs.shutdown();
      await app.close();
      await bridge.close();
    },
  };
}

/** A raw TCP client: what it received, and a promise that settles when the server closed it. */
function rawClient(port: number): { socket: Socket; received: () => string; closed: Promise<void> } {
  const socket = connect(port, "127.0.0.1");
  let text = "";
  socket.setEncoding("utf8");
  socket.on("data", (chunk: string) => (text += chunk));
  socket.on("error", () => undefined);
  const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()));
  return { socket, received: () => text, closed };
}

/** Status line and JSON body of a raw HTTP answer. */
function parseRaw(text: string): { status: number; headers: string; body: Record<string, unknown> } {
  const [head, body] = [text.slice(0, text.indexOf("\r\n\r\n")), text.slice(text.indexOf("\r\n\r\n") + 4)];
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]), headers: head.toLowerCase(), body: JSON.parse(body) as Record<string, unknown> };
}

/** Keep writing `chunk` every `ms` until the socket closes (a slowloris drip). */
function drip(socket: Socket, chunk: string, ms: number): void {
  const timer = setInterval(() => {
    if (socket.destroyed || !socket.writable) clearInterval(timer);
    else socket.write(chunk);
  }, ms);
  socket.on("close", () => clearInterval(timer));
}

function withHost(port: number, host: string, path = "/ok"): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: "127.0.0.1", port, path, method: "GET", headers: { host, ...ALICE } }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Record<string, unknown> }));
    });
    req.on("error", reject);
    req.end();
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("gateway limits: timeouts", () => {
  let s: Server;
  beforeAll(async () => {
    s = await startServer({ limits: { headersTimeoutMs: 400, requestTimeoutMs: 800, idleTimeoutMs: 300, keepAliveTimeoutMs: 200 }, heartbeatMs: 100 });
  });
  afterAll(async () => s.close());

  it("cuts a client that trickles its headers (slowloris) with 408 KEEL_ERR_HTTP_REQUEST_TIMEOUT; others are served meanwhile", async () => {
    const slow = rawClient(s.port);
    slow.socket.write("GET /ok HTTP/1.1\r\nHost: localhost\r\n");
    drip(slow.socket, "X-Slow: 1\r\n", 50);
    // While the slow client holds its connection, another one is answered.
    const ok = await fetch(`${s.base}/ok`);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ ok: true });
    expect(slow.socket.destroyed).toBe(false);
    await slow.closed;
    const answer = parseRaw(slow.received());
    expect(answer.status).toBe(408);
    expect(answer.body).toMatchObject({ error: "KEEL_ERR_HTTP_REQUEST_TIMEOUT" });
  });

  it("cuts a client that trickles its body with 408 KEEL_ERR_HTTP_REQUEST_TIMEOUT", async () => {
    const slow = rawClient(s.port);
    slow.socket.write(`POST /threads HTTP/1.1\r\nHost: localhost\r\nx-api-key: key-alice\r\ncontent-type: application/json\r\ncontent-length: 4000\r\n\r\n{"metadata":{"a":"`);
    drip(slow.socket, "a", 50);
    await slow.closed;
    const answer = parseRaw(slow.received());
    expect(answer.status).toBe(408);
    expect(answer.body).toMatchObject({ error: "KEEL_ERR_HTTP_REQUEST_TIMEOUT" });
  });

  it("closes a connection that never sends anything", async () => {
    const silent = rawClient(s.port);
    await silent.closed;
    expect(silent.socket.destroyed).toBe(true);
  });

  it("closes an idle keep-alive connection after keepAliveTimeoutMs, having answered its request", async () => {
    const client = rawClient(s.port);
    client.socket.write("GET /ok HTTP/1.1\r\nHost: localhost\r\nconnection: keep-alive\r\n\r\n");
    await client.closed;
    expect(parseRaw(client.received()).status).toBe(200);
  });

  it("an SSE stream outlives the request, idle and keep-alive timeouts (heartbeats, then end)", async () => {
    const thread = (await (await fetch(`${s.base}/threads`, { method: "POST", headers: { ...ALICE, "content-type": "application/json" }, body: "{}" })).json()) as { thread_id: string };
    const response = await fetch(`${s.base}/threads/${thread.thread_id}/runs/stream`, {
      method: "POST",
      headers: { ...ALICE, "content-type": "application/json" },
      body: JSON.stringify({ assistant_id: "lead", input: "gate" }),
    });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = "";
    // 12 heartbeats at 100 ms: longer than the request (800 ms), idle (300 ms) and keep-alive (200 ms) timeouts.
    while ((text.match(/: heartbeat/g) ?? []).length < 12) {
      const { done, value } = await reader.read();
      expect(done).toBe(false);
      text += decoder.decode(value);
    }
    const runId = /"run_id":"([^"]+)"/.exec(text)![1]!;
    expect(s.executor.release(runId)).toBe(true);
    for (let r = await reader.read(); !r.done; r = await reader.read()) text += decoder.decode(r.value);
    expect(text).toContain("event: end");
  });

  it("a /wait on a quiet run outlives the idle timeout: the server is working on the answer", async () => {
    const thread = (await (await fetch(`${s.base}/threads`, { method: "POST", headers: { ...ALICE, "content-type": "application/json" }, body: "{}" })).json()) as { thread_id: string };
    const waiting = fetch(`${s.base}/threads/${thread.thread_id}/runs/wait`, {
      method: "POST",
      headers: { ...ALICE, "content-type": "application/json" },
      body: JSON.stringify({ assistant_id: "lead", input: "gate" }),
    });
    const runId = await until(() => s.executor.started.find((id) => s.executor.isWaiting(id)), "the gated run");
    await sleep(1_200); // four idle timeouts, with no byte on the connection
    expect(s.executor.release(runId)).toBe(true);
    const answer = await waiting;
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({ turns: 2 });
  });
});

describe("gateway limits: hostile requests", () => {
  let s: Server;
  beforeAll(async () => {
    s = await startServer();
  });
  afterAll(async () => s.close());

  it("headers over Node's limit → 431 KEEL_ERR_HTTP_HEADERS_TOO_LARGE; bytes that are not HTTP → 400 KEEL_ERR_HTTP_MALFORMED_REQUEST", async () => {
    const big = rawClient(s.port);
    big.socket.write(`GET /ok HTTP/1.1\r\nHost: localhost\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`);
    await big.closed;
    expect(parseRaw(big.received())).toMatchObject({ status: 431, body: { error: "KEEL_ERR_HTTP_HEADERS_TOO_LARGE" } });

    const garbage = rawClient(s.port);
    garbage.socket.write("HELLO THERE\r\n\r\n");
    await garbage.closed;
    expect(parseRaw(garbage.received())).toMatchObject({ status: 400, body: { error: "KEEL_ERR_HTTP_MALFORMED_REQUEST" } });
  });

  it("deep JSON nesting → 400 KEEL_ERR_HTTP_BODY_TOO_DEEP, never 500; 64 levels are accepted", async () => {
    const thread = (await (await fetch(`${s.base}/threads`, { method: "POST", headers: { ...ALICE, "content-type": "application/json" }, body: "{}" })).json()) as { thread_id: string };
    const post = (body: string) => fetch(`${s.base}/threads/${thread.thread_id}/runs`, { method: "POST", headers: { ...ALICE, "content-type": "application/json" }, body });
    // The body object is level 1, `input` level 2: 62 more arrays make 64 levels.
    const nested = (levels: number) => `{"assistant_id":"lead","input":${"[".repeat(levels - 1)}${"]".repeat(levels - 1)}}`;
    const tooDeep = await post(nested(65));
    expect(tooDeep.status).toBe(400);
    expect(await tooDeep.json()).toMatchObject({ error: "KEEL_ERR_HTTP_BODY_TOO_DEEP" });
    // 500,000 levels (1 MiB): the check is iterative, and nothing recursive ever sees it.
    const hostile = await post(`{"assistant_id":"lead","input":${"[".repeat(500_000)}${"]".repeat(500_000)}}`);
    expect(hostile.status).toBe(400);
    expect(await hostile.json()).toMatchObject({ error: "KEEL_ERR_HTTP_BODY_TOO_DEEP" });
    const objects = await fetch(`${s.base}/threads/search`, { method: "POST", headers: { ...ALICE, "content-type": "application/json" }, body: `{"metadata":${'{"a":'.repeat(100)}1${"}".repeat(100)}}` });
    expect(objects.status).toBe(400);
    expect(await objects.json()).toMatchObject({ error: "KEEL_ERR_HTTP_BODY_TOO_DEEP" });

    const deepest = await post(nested(64));
    expect(deepest.status).toBe(200);
    await s.runs.cancel(thread.thread_id, ((await deepest.json()) as { run_id: string }).run_id, { wait: true });
  });

  it("limit and offset must be integers in range (query and body) → 400 naming the field", async () => {
    const thread = (await (await fetch(`${s.base}/threads`, { method: "POST", headers: { ...ALICE, "content-type": "application/json" }, body: "{}" })).json()) as { thread_id: string };
    const list = (query: string) => fetch(`${s.base}/threads/${thread.thread_id}/runs?${query}`, { headers: ALICE });
    for (const [query, pointer] of [
      ["limit=1.5", "/limit"],
      ["limit=abc", "/limit"],
      ["limit=-1", "/limit"],
      ["limit=1001", "/limit"],
      ["offset=-1", "/offset"],
      ["offset=2.5", "/offset"],
      ["offset=99999999999", "/offset"],
      ["offset=1e400", "/offset"],
      ["limit=Infinity", "/limit"],
      ["limit=-Infinity", "/limit"],
    ] as const) {
      const response = await list(query);
      expect([query, response.status, await response.json()]).toEqual([query, 400, expect.objectContaining({ error: "KEEL_ERR_HTTP_INVALID_BODY", pointer })]);
    }
    expect((await list("limit=5&offset=0")).status).toBe(200);
    // limit=0 is an empty page, as LangGraph answers (test/plugins/gateway/limit-zero.test.ts).
    expect(await (await list("limit=0")).json()).toEqual([]);
    const search = (body: object) => fetch(`${s.base}/threads/search`, { method: "POST", headers: { ...ALICE, "content-type": "application/json" }, body: JSON.stringify(body) });
    for (const body of [{ limit: 2.5 }, { limit: "ten" }, { offset: -3 }, { offset: 1.25 }]) {
      const response = await search(body);
      expect([body, response.status, ((await response.json()) as { error: string }).error]).toEqual([body, 400, "KEEL_ERR_HTTP_INVALID_BODY"]);
    }
    expect((await search({ limit: 3, offset: 1 })).status).toBe(200);
  });
});

describe("gateway limits: connections per client", () => {
  let s: Server;
  beforeAll(async () => {
    s = await startServer({ limits: { maxConnectionsPerClient: 3 } });
  });
  afterAll(async () => s.close());

  it("one connection over the cap is answered 429 KEEL_ERR_HTTP_TOO_MANY_CONNECTIONS and closed; a freed slot serves again", async () => {
    const held = [rawClient(s.port), rawClient(s.port), rawClient(s.port)];
    // Each held connection has been counted once it answered a request.
    for (const client of held) client.socket.write("GET /ok HTTP/1.1\r\nHost: localhost\r\n\r\n");
    await until(() => held.every((c) => c.received().includes("200 OK")), "three answered connections");

    const over = rawClient(s.port);
    over.socket.write("GET /ok HTTP/1.1\r\nHost: localhost\r\n\r\n");
    await over.closed;
    const answer = parseRaw(over.received());
    expect(answer.status).toBe(429);
    expect(answer.headers).toContain("connection: close");
    expect(answer.body).toMatchObject({ error: "KEEL_ERR_HTTP_TOO_MANY_CONNECTIONS" });

    // The held connections still work.
    held[0]!.socket.write("GET /ok HTTP/1.1\r\nHost: localhost\r\n\r\n");
    await until(() => (held[0]!.received().match(/200 OK/g) ?? []).length === 2, "a second answer on a held connection");

    held[1]!.socket.destroy();
    const again = await until(async () => {
      const response = await fetch(`${s.base}/ok`, { headers: { connection: "close" } });
      return response.status === 200 ? response : undefined;
    }, "a served connection after one was freed");
    expect(await again.json()).toEqual({ ok: true });
    for (const client of held) client.socket.destroy();
  });
});

describe("gateway limits: Host on a keyless loopback server (DNS rebinding)", () => {
  let keyless: Server;
  let keyed: Server;
  beforeAll(async () => {
    keyless = await startServer({ keys: false });
    keyed = await startServer({ keys: true });
  });
  afterAll(async () => {
    await keyless.close();
    await keyed.close();
  });

  it("answers localhost, 127.0.0.1 and [::1] with any port; refuses other names with 403 KEEL_ERR_HTTP_HOST_NOT_ALLOWED", async () => {
    for (const host of ["localhost", `localhost:${keyless.port}`, "127.0.0.1", "127.0.0.1:1", "[::1]", "[::1]:8787", "LOCALHOST:80"]) {
      expect([host, (await withHost(keyless.port, host)).status]).toEqual([host, 200]);
    }
    for (const host of ["evil.example", "evil.example:8787", "localhost.evil.example", "127.0.0.1.nip.io", "10.0.0.5", "[::2]", "localhost:99999", "localhost:abc"]) {
      const answer = await withHost(keyless.port, host, "/threads/search");
      expect([host, answer.status, answer.body.error]).toEqual([host, 403, "KEEL_ERR_HTTP_HOST_NOT_ALLOWED"]);
    }
    // `/ok` is checked too: a rebinding page learns nothing, not even that the server is up.
    expect((await withHost(keyless.port, "evil.example")).status).toBe(403);
  });

  it("a server with API keys answers any Host (the key is the protection)", async () => {
    expect((await withHost(keyed.port, "api.example.com")).status).toBe(200);
    expect((await withHost(keyed.port, "api.example.com", "/threads/search")).status).toBe(404); // GET on a POST route: past the host check and auth
  });

  it("recognises exactly the loopback host names", () => {
    expect(["localhost", "127.0.0.1:9", "[::1]:65535"].map(isLoopbackHostHeader)).toEqual([true, true, true]);
    expect([undefined, "", "127.0.0.2", "[::1]:65536", "localhost:", "::1"].map(isLoopbackHostHeader)).toEqual([false, false, false, false, false, false]);
  });
});

describe("gateway limits: options", () => {
  it("defaults and bounds", () => {
    expect(DEFAULT_CONNECTION_LIMITS).toEqual({ headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, idleTimeoutMs: 60_000, keepAliveTimeoutMs: 10_000, maxConnectionsPerClient: 256 });
    expect(readConnectionLimits({ maxConnectionsPerClient: 5 }).maxConnectionsPerClient).toBe(5);
    for (const bad of [{ idleTimeoutMs: 0 }, { maxConnectionsPerClient: 1.5 }, { headersTimeoutMs: 40_000 }]) {
      expect(() => readConnectionLimits(bad)).toThrow(expect.objectContaining({ code: "KEEL_ERR_CONFIG_INVALID" }));
    }
  });

  it("assertJsonDepth counts the top level as 1", () => {
    expect(() => assertJsonDepth([[1]], 2)).not.toThrow();
    expect(() => assertJsonDepth([[[1]]], 2)).toThrow(expect.objectContaining({ code: "KEEL_ERR_HTTP_BODY_TOO_DEEP", status: 400 }));
    expect(() => assertJsonDepth("flat", 1)).not.toThrow();
  });
});
