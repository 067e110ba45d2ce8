/**
 * `keel serve --auth FILE:EXPORT --cors ORIGIN --thread-ttl N` as a real process on SQLite,
 * driven by `@langchain/langgraph-sdk` (docs/http.md, "Auth", "CORS",
 * "Thread TTL and retention"): the handler names the users, its refusals and 401s come back coded, CORS
 * answers a browser's preflight, threads get their expiry, the v2 thread protocol is a 501.
 */
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSqlRunStore } from "../../plugins/store-sql/index.js";
import type { RunStore } from "../../kernel/runs/types.js";
import { resolveServeOptions, type ServeFlags } from "../../tools/serve/serve-options.js";
import { loadAuthModule } from "../../tools/serve/auth-module.js";
import { openRunServices } from "../../tools/serve/run-services.js";
import type { Plugin } from "../../kernel/plugin/types.js";
import { FIXTURES, runServeToExit, startServe, tempDir, type ServeProcess } from "./serve-process.js";
import { TAP_BRIDGE } from "../fixtures/third-party-bridge/index.js";

describe("keel serve --auth --cors --thread-ttl", () => {
  let dir: string;
  let server: ServeProcess;
  let store: RunStore;
  const client = (token: string) => new Client({ apiUrl: server.url, defaultHeaders: { authorization: `Bearer ${token}` }, callerOptions: { maxRetries: 0 } });

  beforeAll(async () => {
    dir = tempDir("keel-e2e-auth-");
    const db = join(dir, "keel.db");
    server = await startServe(
      ["--port", "0", "--db", `sqlite:${db}`, "--auth", join(FIXTURES, "auth-handler.mjs:auth"), "--cors", "https://app.example", "--thread-ttl", "120", "--retention-sweep-minutes", "30"],
      { cwd: dir, env: { KEEL_API_KEYS: "" } },
    );
    store = await createSqlRunStore(`sqlite:${db}`);
  }, 40_000);

  afterAll(async () => {
    await store?.close();
    const exit = await server?.stop("SIGTERM");
    if (dir) rmSync(dir, { recursive: true, force: true });
    expect(exit?.code).toBe(0);
  });

  it("the handler's user owns the thread, its `threads:create` callback stamps it, and a run completes", async () => {
    const ann = client("tok-ann");
    const thread = await ann.threads.create({ metadata: { topic: "t" } });
    expect(thread.metadata).toMatchObject({ topic: "t", creator: "ann" });
    const values = (await ann.runs.wait(thread.thread_id, "lead", { input: { messages: [{ role: "user", content: "hi" }] } })) as Record<string, unknown>;
    expect((values.outcome as { status: string }).status).toBe("succeeded");
    // Keel's ownership holds with a handler too: another user gets 404.
    await expect(client("tok-rob").threads.get(thread.thread_id)).rejects.toMatchObject({ status: 404 });
  });

  it("answers the handler's 401 and refusal with coded bodies carrying detail", async () => {
    const anonymous = await fetch(`${server.url}/threads`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toEqual({ error: "KEEL_ERR_HTTP_UNAUTHORIZED", message: "unknown token", detail: "unknown token" });
    await expect(client("tok-rob").threads.create()).rejects.toMatchObject({ status: 403 });
  });

  it("answers a browser preflight from the allowed origin, and marks its answers", async () => {
    const preflight = await fetch(`${server.url}/threads/search`, { method: "OPTIONS", headers: { origin: "https://app.example", "access-control-request-method": "POST", "access-control-request-headers": "authorization,content-type" } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("https://app.example");
    expect(preflight.headers.get("access-control-allow-headers")).toBe("authorization,content-type");
    const search = await fetch(`${server.url}/threads/search`, { method: "POST", headers: { origin: "https://app.example", authorization: "Bearer tok-ann", "content-type": "application/json" }, body: "{}" });
    expect(search.status).toBe(200);
    expect(search.headers.get("access-control-allow-origin")).toBe("https://app.example");
  });

  it("gives each thread its expiry: --thread-ttl by default, the SDK's `ttl` (minutes) when given", async () => {
    const ann = client("tok-ann");
    const before = Date.now();
    const plain = await ann.threads.create();
    const short = await ann.threads.create({ ttl: 5 });
    expect((await store.getThreadExpiry!(plain.thread_id))?.ttlMinutes).toBe(120);
    const expiry = await store.getThreadExpiry!(short.thread_id);
    expect(expiry?.ttlMinutes).toBe(5);
    const at = Date.parse(expiry!.expiresAt);
    expect(at).toBeGreaterThanOrEqual(before + 5 * 60_000);
    expect(at).toBeLessThan(Date.now() + 5 * 60_000 + 1);
    // A strategy other than LangGraph's `delete` is refused, naming the field.
    const refused = await fetch(`${server.url}/threads`, { method: "POST", headers: { authorization: "Bearer tok-ann", "content-type": "application/json" }, body: JSON.stringify({ ttl: { ttl: 5, strategy: "keep_latest" } }) });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: "KEEL_ERR_HTTP_INVALID_BODY", pointer: "/ttl/strategy" });
  });

  it("answers the SDK's threads.joinStream (v2 thread protocol) with 501 KEEL_ERR_HTTP_NOT_IMPLEMENTED", async () => {
    const ann = client("tok-ann");
    const thread = await ann.threads.create();
    const joined = (async () => {
      for await (const _ of ann.threads.joinStream(thread.thread_id)) void _;
    })();
    await expect(joined).rejects.toMatchObject({ status: 501 });
  });
});

describe("keel serve --auth / --cors / --thread-ttl refusals", () => {
  it("parses the flags: --cors origins (repeated or comma-separated), --thread-ttl minutes or off, --retention-sweep-minutes", () => {
    const options = resolveServeOptions({ cors: ["https://a.example,http://localhost:5173", "*"], "thread-ttl": "off", "retention-sweep-minutes": "5" }, {}, "/tmp");
    expect(options.corsOrigins).toEqual(["https://a.example", "http://localhost:5173", "*"]);
    expect([options.threadTtlMinutes, options.retentionSweepMinutes]).toEqual([null, 5]);
    const defaults = resolveServeOptions({}, {}, "/tmp");
    expect([defaults.corsOrigins, defaults.threadTtlMinutes, defaults.retentionSweepMinutes, defaults.auth]).toEqual([[], 43_200, 60, undefined]);
    expect(resolveServeOptions({ auth: "./auth.mjs:handler" }, {}, "/srv").auth).toEqual({ file: "/srv/auth.mjs", exportName: "handler" });
    expect(resolveServeOptions({ auth: "./auth.mjs" }, {}, "/srv").auth).toEqual({ file: "/srv/auth.mjs", exportName: "default" });
    // A handler protects a non-loopback host as keys do.
    expect(resolveServeOptions({ auth: "./auth.mjs", host: "0.0.0.0" }, {}, "/srv").host).toBe("0.0.0.0");
  });

  it("refuses bad values with KEEL_ERR_CLI_USAGE / KEEL_ERR_SERVE_CONFIG naming the flag", () => {
    const refused: [ServeFlags, NodeJS.ProcessEnv, string, string][] = [
      [{ cors: ["https://app.example/path"] }, {}, "KEEL_ERR_CLI_USAGE", "--cors"],
      [{ cors: ["app.example"] }, {}, "KEEL_ERR_CLI_USAGE", "--cors"],
      [{ "thread-ttl": "soon" }, {}, "KEEL_ERR_CLI_USAGE", "--thread-ttl"],
      [{ "thread-ttl": "0" }, {}, "KEEL_ERR_CLI_USAGE", "--thread-ttl"],
      [{ "retention-sweep-minutes": "0" }, {}, "KEEL_ERR_CLI_USAGE", "--retention-sweep-minutes"],
      [{ auth: ":x" }, {}, "KEEL_ERR_CLI_USAGE", "--auth"],
      [{ auth: "./auth.mjs" }, { KEEL_API_KEYS: "k:u" }, "KEEL_ERR_SERVE_CONFIG", "--auth replaces KEEL_API_KEYS"],
    ];
    for (const [flags, env, code, text] of refused) {
      expect(() => resolveServeOptions(flags, env, "/tmp"), JSON.stringify(flags)).toThrow(expect.objectContaining({ code, message: expect.stringContaining(text) }));
    }
  });

  it("refuses a module that does not exist, does not load, lacks the export or exports no handler", async () => {
    await expect(loadAuthModule({ file: join(FIXTURES, "missing.mjs"), exportName: "default" })).rejects.toMatchObject({ code: "KEEL_ERR_SERVE_CONFIG", message: expect.stringContaining("does not exist") });
    const dir = tempDir("keel-auth-module-");
    try {
      writeFileSync(join(dir, "broken.mjs"), "export const auth = ;\n");
      await expect(loadAuthModule({ file: join(dir, "broken.mjs"), exportName: "auth" })).rejects.toMatchObject({ code: "KEEL_ERR_SERVE_CONFIG", message: expect.stringContaining("failed to load") });
      writeFileSync(join(dir, "plain.mjs"), "export default { hello: 1 };\n");
      await expect(loadAuthModule({ file: join(dir, "plain.mjs"), exportName: "default" })).rejects.toMatchObject({ code: "KEEL_ERR_AUTH_HANDLER_INVALID" });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    await expect(loadAuthModule({ file: join(FIXTURES, "auth-handler.mjs"), exportName: "nope" })).rejects.toMatchObject({ code: "KEEL_ERR_SERVE_CONFIG", message: expect.stringContaining("no export `nope`") });
    await expect(loadAuthModule({ file: join(FIXTURES, "auth-handler.mjs"), exportName: "default" })).rejects.toMatchObject({ code: "KEEL_ERR_SERVE_CONFIG" });
    expect(typeof (await loadAuthModule({ file: join(FIXTURES, "auth-handler.mjs"), exportName: "auth" })).authenticate).toBe("function");
  });

  it("a real process with a bad --auth export exits 2 before listening", async () => {
    const dir = tempDir("keel-e2e-auth-bad-");
    try {
      const result = await runServeToExit(["--port", "0", "--db", "sqlite::memory:", "--auth", join(FIXTURES, "auth-handler.mjs:nope")], { cwd: dir, env: { KEEL_API_KEYS: "" } });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain("no export `nope`");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});

describe("an `auth` port from a --plugin service", () => {
  it("is opened by the server's services and adapted into the gateway's handler", async () => {
    const plugin = {
      manifest: { name: "token-auth", version: "1.0.0", kind: "service", kernel: ">=0.1.0 <1", description: "bearer tokens", provides: ["auth"], hooks: {}, config: { type: "object", additionalProperties: false, properties: {} } },
      hooks: {},
      services: { auth: () => ({ authenticate: (request: Request) => request.headers.get("x-user") ?? "nobody" }) },
    } as unknown as Plugin;
    const services = await openRunServices({ db: "sqlite::memory:", plugins: [plugin] });
    try {
      expect(services.auth).toBeDefined();
      expect(await services.auth!.authenticate(new Request("http://localhost/", { headers: { "x-user": "zoe" } }))).toBe("zoe");
    } finally {
      await services.close();
    }
    const none = await openRunServices({ db: "sqlite::memory:" });
    expect(none.auth).toBeUndefined();
    await none.close();
  });
});

describe("keel serve --host 0.0.0.0 with a --plugin providing the `auth` port", () => {
  let dir: string;
  let server: ServeProcess;

  beforeAll(async () => {
    dir = tempDir("keel-e2e-auth-port-");
    server = await startServe(["--host", "0.0.0.0", "--port", "0", "--db", `sqlite:${join(dir, "keel.db")}`, "--plugin", join(FIXTURES, "auth-port-plugin.mjs")], { cwd: dir, env: { KEEL_API_KEYS: "" } });
  }, 40_000);

  afterAll(async () => {
    const exit = await server?.stop("SIGTERM");
    if (dir) rmSync(dir, { recursive: true, force: true });
    expect(exit?.code).toBe(0);
  });

  it("binds the non-loopback host; the plugin's handler names the users (401 without a token, another user's thread a 404)", async () => {
    expect(server.url).toMatch(/^http:\/\/0\.0\.0\.0:\d+$/);
    const apiUrl = server.url.replace("0.0.0.0", "127.0.0.1");
    const ivy = new Client({ apiUrl, defaultHeaders: { authorization: "Bearer tok-ivy" }, callerOptions: { maxRetries: 0 } });
    const thread = await ivy.threads.create();
    const values = (await ivy.runs.wait(thread.thread_id, "lead", { input: { messages: [{ role: "user", content: "hi" }] } })) as Record<string, unknown>;
    expect((values.outcome as { status: string }).status).toBe("succeeded");
    const anonymous = await fetch(`${apiUrl}/threads`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(anonymous.status).toBe(401);
    await expect(new Client({ apiUrl, defaultHeaders: { authorization: "Bearer tok-max" }, callerOptions: { maxRetries: 0 } }).threads.get(thread.thread_id)).rejects.toMatchObject({ status: 404 });
  }, 30_000);

  it("a --plugin without the `auth` port does not unlock it: exit 2 before listening", async () => {
    const other = tempDir("keel-e2e-auth-port-none-");
    try {
      const result = await runServeToExit(["--host", "0.0.0.0", "--port", "0", "--db", "sqlite::memory:", "--plugin", TAP_BRIDGE], { cwd: other, env: { KEEL_API_KEYS: "" } });
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/KEEL_ERR_SERVE_CONFIG: refusing to bind `0\.0\.0\.0` without API keys/);
      expect(result.stdout).not.toMatch(/http:\/\//);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  }, 30_000);
});
