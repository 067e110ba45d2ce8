import { spawn } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { importOptional, requireOptional } from "../../kernel/optional-import.js";
import { packageRoot } from "../../kernel/package-root.js";
import { BIN, assertBuilt, tempDir } from "./serve-process.js";

/**
 * The optional peer dependencies, hidden from a child process by a resolve hook
 * (test/fixtures/hide-packages): the core must import and run without them, and each
 * feature that needs one must say which package to install.
 */
const HIDE = join(packageRoot(), "test", "fixtures", "hide-packages", "hide.mjs");
const OPTIONAL = ["@langchain/openai", "@langchain/anthropic", "@langchain/langgraph-checkpoint-postgres", "@mikro-orm/postgresql", "pg", "ioredis"];

function runHidden(args: string[], env: Record<string, string> = {}, hidden: readonly string[] = OPTIONAL): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, args, {
    cwd: tempDir("keel-optional-"),
    env: { ...process.env, ...env, KEEL_TEST_HIDE_PACKAGES: hidden.join(","), NODE_OPTIONS: `--import ${HIDE}` },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const timer = setTimeout(() => child.kill("SIGKILL"), 25_000);
  return new Promise((resolve) =>
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}

const serve = (...flags: string[]) => [BIN, "serve", "--port", "0", ...flags];

describe("optional peer dependencies", () => {
  it("the hook really hides them: importing one in the child fails as not found", async () => {
    const result = await runHidden(["--input-type=module", "-e", "await import('ioredis')"]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("Cannot find package 'ioredis'");
  });

  it("without any of them, every package entry imports (keel, keel/host, keel/testing, keel/contracts)", async () => {
    assertBuilt();
    const entries = ["tools/index.js", "tools/host/index.js", "tools/testing/index.js", "contracts/index.js"].map((entry) => join(packageRoot(), "dist", entry));
    const imported = await runHidden(["--input-type=module", "-e", `for (const entry of ${JSON.stringify(entries)}) await import(entry); console.log("imported")`]);
    expect(imported.stderr).toBe("");
    expect(imported.stdout.trim()).toBe("imported");
  });

  it("without any of them, `keel run` runs the demo scenario", async () => {
    assertBuilt();
    const demo = join(packageRoot(), "tools", "demo", "demo.scenario.json");
    const run = await runHidden([BIN, "run", demo, "--json"]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).contract).toBe("run-report");
  });

  it("--model openai:… without @langchain/openai names the package to install", async () => {
    assertBuilt();
    const result = await runHidden(serve("--model", "openai:gpt-4o-mini"), { OPENAI_API_KEY: "sk-test" });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("KEEL_ERR_OPTIONAL_DEPENDENCY_MISSING");
    expect(result.stderr).toContain("npm install @langchain/openai");
  });

  it("--model anthropic:… without @langchain/anthropic names the package to install", async () => {
    assertBuilt();
    const result = await runHidden(serve("--model", "anthropic:claude-sonnet-4-5"), { ANTHROPIC_API_KEY: "sk-test" });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("KEEL_ERR_OPTIONAL_DEPENDENCY_MISSING");
    expect(result.stderr).toContain("npm install @langchain/anthropic");
  });

  it("--db postgres://… without the PostgreSQL drivers names both packages", async () => {
    assertBuilt();
    const result = await runHidden(serve("--db", "postgres://keel:keel@127.0.0.1:1/keel"));
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("KEEL_ERR_OPTIONAL_DEPENDENCY_MISSING");
    expect(result.stderr).toContain("npm install @mikro-orm/postgresql @langchain/langgraph-checkpoint-postgres");
  });

  it("--db postgres://… with the store driver but without the checkpointer names the checkpointer", async () => {
    assertBuilt();
    // Port 1 refuses at once: the store fails to connect, so call the checkpointer directly.
    const checkpointer = join(packageRoot(), "dist", "plugins", "store-sql", "checkpointer.js");
    const script = `const { createCheckpointer } = await import(${JSON.stringify(checkpointer)});
try { await createCheckpointer("postgres://keel:keel@127.0.0.1:1/keel"); } catch (error) { console.log(error.code, error.message); }`;
    const result = await runHidden(["--input-type=module", "-e", script], {}, ["@langchain/langgraph-checkpoint-postgres"]);
    expect(result.stdout).toContain("KEEL_ERR_OPTIONAL_DEPENDENCY_MISSING");
    expect(result.stdout).toContain("`@langchain/langgraph-checkpoint-postgres`");
  });

  it("--redis without ioredis names the package to install", async () => {
    assertBuilt();
    const result = await runHidden(serve("--redis", "redis://127.0.0.1:1"));
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("KEEL_ERR_OPTIONAL_DEPENDENCY_MISSING");
    expect(result.stderr).toContain("npm install ioredis");
  });
});

describe("importOptional / requireOptional", () => {
  it("turn only the named package's absence into KEEL_ERR_OPTIONAL_DEPENDENCY_MISSING", async () => {
    const notFound = (name: string) => Object.assign(new Error(`Cannot find package '${name}' imported from /x.js`), { code: "ERR_MODULE_NOT_FOUND" });
    await expect(importOptional("pkg-a", "--flag", () => Promise.reject(notFound("pkg-a")))).rejects.toMatchObject({
      code: "KEEL_ERR_OPTIONAL_DEPENDENCY_MISSING",
      message: "--flag needs the optional package `pkg-a`, which is not installed: run `npm install pkg-a`",
    });
    // A dependency of the package missing, or the package failing as it loads: the original error.
    await expect(importOptional("pkg-a", "--flag", () => Promise.reject(notFound("pkg-b")))).rejects.toThrow("Cannot find package 'pkg-b'");
    await expect(importOptional("pkg-a", "--flag", () => Promise.reject(new TypeError("boom")))).rejects.toThrow(TypeError);
    await expect(importOptional("pkg-a", "--flag", async () => ({ ok: 1 }))).resolves.toEqual({ ok: 1 });
    expect(() => requireOptional("keel-no-such-package", "--flag", "a b")).toThrow("run `npm install a b`");
    expect(requireOptional<typeof import("semver")>("semver", "--flag").valid("1.2.3")).toBe("1.2.3");
  });
});
