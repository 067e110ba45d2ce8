import { describe, expect, it } from "vitest";
import { langsmithTracingEnabled, redactedEndpoint, resolveOtlpEndpoint } from "../../../plugins/tracing/index.js";

describe("where spans go", () => {
  it("the flag and OTEL_EXPORTER_OTLP_ENDPOINT are base URLs; the traces variable is used as is; the flag wins", () => {
    expect(resolveOtlpEndpoint(undefined, {})).toBeUndefined();
    expect(resolveOtlpEndpoint("http://127.0.0.1:4318", {})).toBe("http://127.0.0.1:4318/v1/traces");
    expect(resolveOtlpEndpoint("http://collector:4318/otlp/", {})).toBe("http://collector:4318/otlp/v1/traces");
    expect(resolveOtlpEndpoint("http://collector:4318/v1/traces", {})).toBe("http://collector:4318/v1/traces");
    expect(resolveOtlpEndpoint(undefined, { OTEL_EXPORTER_OTLP_ENDPOINT: "https://otel.example.com" })).toBe("https://otel.example.com/v1/traces");
    expect(resolveOtlpEndpoint(undefined, { OTEL_EXPORTER_OTLP_ENDPOINT: "http://a:4318", OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://b:9999/custom" })).toBe("http://b:9999/custom");
    expect(resolveOtlpEndpoint("http://flag:4318", { OTEL_EXPORTER_OTLP_ENDPOINT: "http://env:4318" })).toBe("http://flag:4318/v1/traces");
  });

  it("OTEL_SDK_DISABLED and OTEL_TRACES_EXPORTER=none switch the environment's endpoint off, not the flag's", () => {
    expect(resolveOtlpEndpoint(undefined, { OTEL_EXPORTER_OTLP_ENDPOINT: "http://a:4318", OTEL_SDK_DISABLED: "true" })).toBeUndefined();
    expect(resolveOtlpEndpoint(undefined, { OTEL_EXPORTER_OTLP_ENDPOINT: "http://a:4318", OTEL_TRACES_EXPORTER: "none" })).toBeUndefined();
    expect(resolveOtlpEndpoint("http://flag:4318", { OTEL_SDK_DISABLED: "true" })).toBe("http://flag:4318/v1/traces");
  });

  it("a URL that is not http(s) is KEEL_ERR_CLI_USAGE naming its source", () => {
    expect(() => resolveOtlpEndpoint("grpc://collector:4317", {})).toThrow(expect.objectContaining({ code: "KEEL_ERR_CLI_USAGE", message: expect.stringContaining("--otlp-endpoint") }));
    expect(() => resolveOtlpEndpoint(undefined, { OTEL_EXPORTER_OTLP_ENDPOINT: "not a url" })).toThrow(expect.objectContaining({ code: "KEEL_ERR_CLI_USAGE", message: expect.stringContaining("OTEL_EXPORTER_OTLP_ENDPOINT") }));
  });

  it("the endpoint /info shows has no credentials", () => {
    expect(redactedEndpoint("https://user:secret@otel.example.com/v1/traces")).toBe("https://otel.example.com/v1/traces");
  });

  it("LangSmith tracing is on by LangChain's own rule: one of its variables is exactly `true`", () => {
    expect(langsmithTracingEnabled({})).toBe(false);
    expect(langsmithTracingEnabled({ LANGSMITH_TRACING: "true" })).toBe(true);
    expect(langsmithTracingEnabled({ LANGCHAIN_TRACING_V2: "true" })).toBe(true);
    expect(langsmithTracingEnabled({ LANGSMITH_TRACING: "false", LANGSMITH_API_KEY: "k" })).toBe(false);
    expect(langsmithTracingEnabled({ LANGSMITH_TRACING: "1" })).toBe(false);
  });
});
