import { spawn } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packageRoot } from "../../kernel/package-root.js";
import { OtlpReceiver } from "../plugins/tracing/otlp-receiver.js";
import { BIN, assertBuilt, tempDir } from "./serve-process.js";

/** The built CLI with tracing on, and with the OpenTelemetry packages hidden (test/fixtures/hide-packages). */
const HIDE = join(packageRoot(), "test", "fixtures", "hide-packages", "hide.mjs");
const OTEL = ["@opentelemetry/api", "@opentelemetry/sdk-trace-base", "@opentelemetry/resources", "@opentelemetry/exporter-trace-otlp-http"];
/** prom-client (a dependency) requires `@opentelemetry/api` itself, so a real install always has it: `keel serve` lacks only the SDK. */
const OTEL_SDK = OTEL.slice(1);
const DEMO = join(packageRoot(), "tools", "demo", "demo.scenario.json");

function keel(args: string[], hidden: readonly string[] = []): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: "", OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "" };
  if (hidden.length > 0) Object.assign(env, { KEEL_TEST_HIDE_PACKAGES: hidden.join(","), NODE_OPTIONS: `--import ${HIDE}` });
  const child = spawn(process.execPath, [BIN, ...args], { cwd: tempDir("keel-tracing-cli-"), env, stdio: ["ignore", "pipe", "pipe"] });
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

describe("keel run --otlp-endpoint", () => {
  const receiver = new OtlpReceiver();
  let collector: string;
  beforeAll(async () => {
    assertBuilt();
    collector = await receiver.start();
  });
  afterAll(() => receiver.stop());

  it("exports the run's spans before it exits: the demo's lead run at the root, its child under the task span", async () => {
    const run = await keel(["run", DEMO, "--json", "--otlp-endpoint", collector]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as { runId: string; outcome: { status: string } };
    const root = receiver.spans.find((s) => s.parentSpanId === undefined)!;
    expect(root.name).toBe("invoke_agent lead");
    expect(root.attributes["keel.run.id"]).toBe(report.runId);
    expect(root.attributes["keel.run.status"]).toBe(report.outcome.status);
    const task = receiver.spans.find((s) => s.name === "execute_tool task")!;
    expect(task.parentSpanId).toBe(root.spanId);
    const child = receiver.spans.find((s) => s.parentSpanId === task.spanId)!;
    expect(child.name.startsWith("invoke_agent ")).toBe(true);
    expect(String(child.attributes["keel.agent.path"])).toMatch(/^lead\//);
  });

  it("a URL that is not http(s) is a usage error (exit 2)", async () => {
    const run = await keel(["run", DEMO, "--otlp-endpoint", "grpc://127.0.0.1:4317"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("KEEL_ERR_CLI_USAGE");
  });
});

describe("without the OpenTelemetry packages", () => {
  it("the hook hides them", async () => {
    const probe = await keel(["run", DEMO, "--otlp-endpoint", "http://127.0.0.1:9"], OTEL);
    expect(probe.code).toBe(2);
    expect(probe.stderr).toContain("KEEL_ERR_OPTIONAL_DEPENDENCY_MISSING");
    expect(probe.stderr).toContain(`npm install ${OTEL.join(" ")}`);
  });

  it("`keel run` without tracing runs as before", async () => {
    const run = await keel(["run", DEMO, "--json"], OTEL);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).contract).toBe("run-report");
  });

  it("`keel serve --otlp-endpoint` does not start, and names the packages", async () => {
    const serve = await keel(["serve", "--port", "0", "--otlp-endpoint", "http://127.0.0.1:9"], OTEL_SDK);
    expect(serve.code).toBe(2);
    expect(serve.stderr).toContain("KEEL_ERR_OPTIONAL_DEPENDENCY_MISSING");
    expect(serve.stderr).toContain("`@opentelemetry/sdk-trace-base`");
    expect(serve.stdout).not.toContain("Keel listening");
  });
});
