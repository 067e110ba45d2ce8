import { describe, expect, it } from "vitest";
import { isLoopbackHost, resolveServeOptions } from "../../tools/serve/serve-options.js";
import { parseModelSpec } from "../../tools/serve/model-spec.js";

describe("keel serve options", () => {
  it("defaults: 127.0.0.1:8787, SQLite, no Redis, the lead stack, the demo model with bash on, 500 turns", () => {
    const options = resolveServeOptions({}, {}, "/work");
    expect(options).toMatchObject({ port: 8787, host: "127.0.0.1", db: "sqlite:./.keel/keel.db", stacks: ["lead"], model: { kind: "demo" }, bash: "on", maxTurns: 500, jobs: 4, lease: {} });
    expect(options.redis).toBeUndefined();
    expect(options.apiKeys.size).toBe(0);
  });

  it("turns bash off by default for real models, on for scripted ones, and takes --bash as given", () => {
    expect(resolveServeOptions({ model: "openai:gpt-4o-mini" }, {}, "/w").bash).toBe("off");
    expect(resolveServeOptions({ model: "anthropic:claude-sonnet-4-5" }, {}, "/w").bash).toBe("off");
    expect(resolveServeOptions({ model: "scripted:s.json" }, {}, "/w").bash).toBe("on");
    expect(resolveServeOptions({ model: "openai:m", bash: "on" }, {}, "/w").bash).toBe("on");
    expect(() => resolveServeOptions({ bash: "maybe" }, {}, "/w")).toThrow(/--bash/);
  });

  it("refuses a non-loopback host without API keys, and allows it with keys", () => {
    expect(() => resolveServeOptions({ host: "0.0.0.0" }, {}, "/w")).toThrow(/refusing to bind `0\.0\.0\.0` without API keys/);
    expect(() => resolveServeOptions({ host: "192.168.1.5" }, { KEEL_API_KEYS: "" }, "/w")).toThrow(/KEEL_API_KEYS/);
    expect(resolveServeOptions({ host: "0.0.0.0" }, { KEEL_API_KEYS: "k:alice" }, "/w").apiKeys.size).toBe(1);
    for (const host of ["127.0.0.1", "127.1.2.3", "localhost", "::1", "[::1]"]) expect(isLoopbackHost(host)).toBe(true);
    for (const host of ["0.0.0.0", "::", "10.0.0.1", "example.com", "128.0.0.1"]) expect(isLoopbackHost(host)).toBe(false);
  });

  it("reads the flags and the test-only lease timings, refusing bad values", () => {
    const options = resolveServeOptions(
      { port: "0", db: "postgres://k:k@h/db", redis: "redis://h:6379", stack: ["lead,subagent"], "max-turns": "40" },
      { KEEL_LEASE_TTL_MS: "1500", KEEL_HEARTBEAT_MS: "300", KEEL_REAPER_MS: "200" },
      "/w",
    );
    expect(options).toMatchObject({ port: 0, db: "postgres://k:k@h/db", redis: "redis://h:6379", stacks: ["lead", "subagent"], maxTurns: 40, lease: { leaseTtlMs: 1500, heartbeatMs: 300, reaperMs: 200 } });
    expect(() => resolveServeOptions({ port: "80x" }, {}, "/w")).toThrow(/--port/);
    expect(() => resolveServeOptions({ port: "70000" }, {}, "/w")).toThrow(/--port/);
    expect(() => resolveServeOptions({ "max-turns": "0" }, {}, "/w")).toThrow(/--max-turns/);
    expect(resolveServeOptions({ jobs: "2" }, {}, "/w").jobs).toBe(2);
    for (const jobs of ["0", "-1", "1.5", "x", "1001"]) expect(() => resolveServeOptions({ jobs }, {}, "/w")).toThrow(/--jobs must be an integer from 1 to 1000/);
    expect(() => resolveServeOptions({}, { KEEL_LEASE_TTL_MS: "soon" }, "/w")).toThrow(/KEEL_LEASE_TTL_MS/);
    expect(resolveServeOptions({}, { KEEL_LEASE_MARGIN_MS: "250" }, "/w").lease).toEqual({ leaseMarginMs: 250 });
    expect(() => resolveServeOptions({}, { KEEL_LEASE_MARGIN_MS: "-1" }, "/w")).toThrow(/KEEL_LEASE_MARGIN_MS/);
  });

  it("parses --model specs", () => {
    expect(parseModelSpec("demo", "/w")).toEqual({ kind: "demo" });
    expect(parseModelSpec("scripted:s/a.json", "/w")).toEqual({ kind: "scripted", file: "/w/s/a.json" });
    expect(parseModelSpec("openai:qwen2.5:7b", "/w")).toEqual({ kind: "openai", model: "qwen2.5:7b" });
    expect(parseModelSpec("anthropic:claude-sonnet-4-5", "/w")).toEqual({ kind: "anthropic", model: "claude-sonnet-4-5" });
    expect(() => parseModelSpec("openai:", "/w")).toThrow(/needs a MODEL/);
    expect(() => parseModelSpec("gemini:x", "/w")).toThrow(/not one of/);
  });
});
