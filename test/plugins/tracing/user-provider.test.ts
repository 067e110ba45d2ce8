import { trace, context } from "@opentelemetry/api";
import { InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KeelError } from "../../../kernel/errors.js";
import type { RunObserver } from "../../../kernel/observe/run-observer.js";
import { startHostTracing, startOtlpTracing, tracingObserver, type PackageImporter } from "../../../plugins/tracing/index.js";
import { runWith, tool, toolsPlugin } from "../../loop/harness.js";

/** A library user's own setup: a NodeTracerProvider registered globally (with its AsyncLocalStorage context manager). */
const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
beforeAll(() => provider.register());
afterAll(async () => {
  await provider.shutdown();
  trace.disable();
  context.disable();
});

describe("tracing into a TracerProvider the host registered", () => {
  it("spans go to the global provider, the run under the host's active span, the tool's own spans under execute_tool", async () => {
    exporter.reset();
    const userTracer = trace.getTracer("user-app");
    const lookup = tool("lookup", async () => userTracer.startActiveSpan("user lookup", (span) => (span.end(), "found it")));
    const observer = await tracingObserver();
    await userTracer.startActiveSpan("POST /ask", async (request) => {
      await runWith([toolsPlugin(lookup)], { turns: [{ toolCalls: [{ name: "lookup", id: "c1", args: {} }] }, { content: "done" }] }, { runtime: { observer } });
      request.end();
    });
    const spans = exporter.getFinishedSpans();
    const byName = (name: string) => spans.find((s) => s.name === name)!;
    const parentOf = (name: string) => byName(name).parentSpanContext?.spanId;
    expect(spans.map((s) => s.name).sort()).toEqual(["POST /ask", "chat keel-scripted", "chat keel-scripted", "execute_tool lookup", "invoke_agent lead", "user lookup"].sort());
    expect(parentOf("invoke_agent lead")).toBe(byName("POST /ask").spanContext().spanId);
    expect(parentOf("execute_tool lookup")).toBe(byName("invoke_agent lead").spanContext().spanId);
    expect(parentOf("user lookup")).toBe(byName("execute_tool lookup").spanContext().spanId);
    expect(byName("invoke_agent lead").attributes["keel.run.id"]).toBe("run-1");
  });

  it("a tool call that fails is an error span with its Keel code; the run goes on", async () => {
    exporter.reset();
    const broken = tool("broken", () => {
      throw new Error("disk on fire");
    });
    const result = await runWith([toolsPlugin(broken)], { turns: [{ toolCalls: [{ name: "broken", id: "b1", args: {} }] }, { content: "reported" }] }, { runtime: { observer: await tracingObserver() } });
    expect(result.outcome.status).toBe("succeeded");
    const span = exporter.getFinishedSpans().find((s) => s.name === "execute_tool broken")!;
    expect(span.status.code).toBe(2); // ERROR
    expect(span.attributes["error.type"]).toBe("KEEL_ERR_TOOL_FAILED");
    expect(span.attributes["keel.tool.status"]).toBe("error");
  });

  it("an observer that throws never breaks the run", async () => {
    const throwing: RunObserver = {
      runStarted: () => ({
        end: () => {
          throw new Error("observer end");
        },
        fail: () => undefined,
        modelCall: () => {
          throw new Error("observer model call");
        },
        toolCall: () => ({ end: () => { throw new Error("observer tool end"); }, fail: () => undefined }),
      }),
    };
    const result = await runWith([toolsPlugin(tool("t", () => "ok"))], { turns: [{ toolCalls: [{ name: "t", id: "t1", args: {} }] }, { content: "done" }] }, { runtime: { observer: throwing } });
    expect(result.outcome.status).toBe("succeeded");
    expect(result.turns).toBe(2);
  });
});

/** Fails like Node does when a package is not installed. */
const missing: PackageImporter = async (name) => {
  const error = new Error(`Cannot find package '${name}' imported from /app/keel.js`) as NodeJS.ErrnoException;
  error.code = "ERR_MODULE_NOT_FOUND";
  throw error;
};

describe("without the OpenTelemetry packages", () => {
  it("tracing off loads nothing and needs nothing", async () => {
    const host = await startHostTracing(undefined, {}, missing);
    expect(host.status).toEqual({ otlp: null, langsmith: false });
    expect(host.observer).toBeUndefined();
  });

  it("tracing requested is KEEL_ERR_OPTIONAL_DEPENDENCY_MISSING naming every package to install", async () => {
    const error = await startHostTracing("http://127.0.0.1:4318", {}, missing).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KeelError);
    expect((error as KeelError).code).toBe("KEEL_ERR_OPTIONAL_DEPENDENCY_MISSING");
    expect((error as KeelError).message).toContain("npm install @opentelemetry/api @opentelemetry/sdk-trace-base @opentelemetry/resources @opentelemetry/exporter-trace-otlp-http");
    await expect(tracingObserver(undefined, missing)).rejects.toMatchObject({ code: "KEEL_ERR_OPTIONAL_DEPENDENCY_MISSING" });
    // A package that is there but broken is not reported as missing.
    const broken: PackageImporter = async () => {
      throw new SyntaxError("Unexpected token");
    };
    await expect(startOtlpTracing({ endpoint: "http://127.0.0.1:4318/v1/traces", importer: broken })).rejects.toThrow(SyntaxError);
  });
});
