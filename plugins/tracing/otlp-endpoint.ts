/**
 * Where spans go: the `--otlp-endpoint` flag, else OpenTelemetry's own environment
 * variables, else nowhere (tracing off). The flag and `OTEL_EXPORTER_OTLP_ENDPOINT` are the
 * collector's base URL (`/v1/traces` is appended, as the OTLP exporter specification says);
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is the full traces URL, used as is.
 */
import { KeelError } from "../../kernel/errors.js";

export const TRACES_PATH = "/v1/traces";

/**
 * The OTLP/HTTP traces URL, or undefined when tracing is off. `OTEL_SDK_DISABLED=true` or
 * `OTEL_TRACES_EXPORTER=none` switch the environment's endpoint off (never the flag's).
 * A URL that is not http(s) is `KEEL_ERR_CLI_USAGE`.
 */
export function resolveOtlpEndpoint(flag: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  if (flag !== undefined) return withTracesPath(checkedUrl(flag, "--otlp-endpoint"));
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") return undefined;
  if (env.OTEL_TRACES_EXPORTER?.trim().toLowerCase() === "none") return undefined;
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  if (traces) return checkedUrl(traces, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT").href;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  if (base) return withTracesPath(checkedUrl(base, "OTEL_EXPORTER_OTLP_ENDPOINT"));
  return undefined;
}

function checkedUrl(raw: string, source: string): URL {
  let url: URL | undefined;
  try {
    url = new URL(raw.trim());
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) {
    throw new KeelError("KEEL_ERR_CLI_USAGE", `${source} must be an http:// or https:// URL (an OTLP/HTTP collector, e.g. http://127.0.0.1:4318), got \`${raw}\``);
  }
  return url;
}

/** The base URL with `/v1/traces` appended (a URL that already ends with it is kept). */
function withTracesPath(url: URL): string {
  const path = url.pathname.replace(/\/+$/, "");
  if (path.endsWith(TRACES_PATH)) return url.href;
  url.pathname = `${path}${TRACES_PATH}`;
  return url.href;
}

/** A URL for messages and `/info`: user and password removed. */
export function redactedEndpoint(endpoint: string): string {
  const url = new URL(endpoint);
  url.username = "";
  url.password = "";
  return url.href;
}
