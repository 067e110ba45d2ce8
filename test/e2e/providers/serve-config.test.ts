import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { packageRoot } from "../../../kernel/package-root.js";
import { providerIdleMs, providerModelFactory } from "../../../tools/serve/run-models.js";
import { resolveServeOptions } from "../../../tools/serve/serve-options.js";
import { runServeToExit, tempDir } from "../serve-process.js";

const CONFIGURATION = ["OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "--max-tokens", "--summarizer-model"];

/** What a LangChain client keeps of its configuration (fields read by tests only). */
type Client = { caller: { maxRetries: number }; maxTokens?: number; clientConfig?: { baseURL?: string; fetch?: unknown }; apiUrl?: string; clientOptions?: { fetch?: unknown } };

describe("keel serve configuration a user can find", () => {
  it("`keel serve --help` lists the provider variables, --max-tokens and --summarizer-model, and exits 0", async () => {
    const { code, stdout } = await runServeToExit(["--help"], { cwd: tempDir("keel-serve-help-") });
    expect(code).toBe(0);
    for (const name of CONFIGURATION) expect(stdout).toContain(name);
    expect(stdout).toMatch(/maxRetries: 0/);
  });

  it("docs/commands.md's `keel serve` section lists them too", () => {
    const readme = readFileSync(join(packageRoot(), "docs", "commands.md"), "utf8");
    const section = readme.slice(readme.indexOf("## `keel serve` with a real model"));
    expect(section.length).toBeLessThan(readme.length);
    for (const name of CONFIGURATION) expect(section.slice(0, 2000)).toContain(`\`${name}`);
  });

  it("--max-tokens reaches the provider spec, and is refused for scripted models and bad values", () => {
    expect(resolveServeOptions({ model: "openai:m", "max-tokens": "2048" }, {}, "/w").model).toEqual({ kind: "openai", model: "m", maxTokens: 2048 });
    expect(resolveServeOptions({ model: "anthropic:c" }, {}, "/w").model).toEqual({ kind: "anthropic", model: "c" });
    expect(() => resolveServeOptions({ "max-tokens": "10" }, {}, "/w")).toThrow(/--max-tokens applies to --model openai:MODEL and anthropic:MODEL only/);
    expect(() => resolveServeOptions({ model: "openai:m", "max-tokens": "0" }, {}, "/w")).toThrow(/--max-tokens must be an integer from 1/);
    expect(() => resolveServeOptions({ model: "openai:m", "max-tokens": "lots" }, {}, "/w")).toThrow(/--max-tokens/);
  });

  it("builds the OpenAI client with its retries off, the token cap, the base URL and the idle-timeout fetch", async () => {
    const make = await providerModelFactory({ kind: "openai", model: "gpt-x", maxTokens: 99 }, { OPENAI_BASE_URL: "http://127.0.0.1:9/v1" });
    const model = make() as unknown as Client;
    expect(model.caller.maxRetries).toBe(0);
    expect(model.maxTokens).toBe(99);
    expect(model.clientConfig?.baseURL).toBe("http://127.0.0.1:9/v1");
    expect(typeof model.clientConfig?.fetch).toBe("function");
    expect(make()).not.toBe(make());
  });

  it("builds the Anthropic client with its retries off, ANTHROPIC_BASE_URL and the idle-timeout fetch; a missing key is a config error", async () => {
    const model = (await providerModelFactory({ kind: "anthropic", model: "claude-x" }, { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: "http://127.0.0.1:9" }))() as unknown as Client;
    expect(model.caller.maxRetries).toBe(0);
    expect(model.apiUrl).toBe("http://127.0.0.1:9");
    expect(typeof model.clientOptions?.fetch).toBe("function");
    await expect(providerModelFactory({ kind: "anthropic", model: "c" }, {})).rejects.toMatchObject({ code: "KEEL_ERR_SERVE_CONFIG", message: expect.stringMatching(/ANTHROPIC_API_KEY/) });
    await expect(providerModelFactory({ kind: "openai", model: "m" }, {})).rejects.toMatchObject({ code: "KEEL_ERR_SERVE_CONFIG", message: expect.stringMatching(/OPENAI_API_KEY/) });
  });

  it("reads KEEL_PROVIDER_IDLE_MS (default 120000), refusing bad values", () => {
    expect(providerIdleMs({})).toBe(120_000);
    expect(providerIdleMs({ KEEL_PROVIDER_IDLE_MS: "500" })).toBe(500);
    expect(() => providerIdleMs({ KEEL_PROVIDER_IDLE_MS: "soon" })).toThrow(/KEEL_PROVIDER_IDLE_MS must be an integer/);
    expect(() => providerIdleMs({ KEEL_PROVIDER_IDLE_MS: "5" })).toThrow(/>= 10/);
  });
});
