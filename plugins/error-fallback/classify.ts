/**
 * Classify a provider error. The kernel wraps provider errors in `ModelCallError`
 * (`status`, `cause`); SDK errors carry `status`, `code`, `type`, `headers`, sometimes
 * nested in `error` or `cause`, so every field is looked up along the cause chain.
 */

export type ProviderErrorType = "auth" | "quota" | "rate_limited" | "timeout" | "server_error" | "network" | "provider_error";

export interface ProviderFailure {
  type: ProviderErrorType;
  /** Whether the error is of the kind worth retrying (429 without quota, 408, 5xx, timeouts, network). */
  retryable: boolean;
  /** The provider's own message. */
  message: string;
  status?: number;
  /** Delay the provider asked for (Retry-After), in ms. */
  retryAfterMs?: number;
}

const NETWORK_CODES = new Set([
  "ECONNRESET",
  "ECONNREFUSED",
  "ECONNABORTED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EPIPE",
  "ENETUNREACH",
  "ENETDOWN",
  "EHOSTUNREACH",
  "UND_ERR_SOCKET",
  "UND_ERR_CLOSED",
]);
const TIMEOUT_CODES = new Set(["ETIMEDOUT", "ESOCKETTIMEDOUT", "UND_ERR_CONNECT_TIMEOUT", "UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT"]);
const QUOTA = /insufficient_quota|quota|billing/i;
const TIMEOUT_TEXT = /timed? ?out|timeout|APIConnectionTimeoutError|TimeoutError/i;
const NETWORK_TEXT = /fetch failed|socket hang up|network error|connection (?:error|reset|refused|closed)|APIConnectionError|ECONNRESET|ECONNREFUSED|ENOTFOUND|EAI_AGAIN/i;
const RATE_TEXT = /rate.?limit|too many requests/i;
const SERVER_TEXT = /overloaded|service unavailable|internal server error|bad gateway|gateway timeout/i;
const AUTH_TEXT = /unauthori[sz]ed|invalid.{0,3}api.{0,3}key|incorrect api key|authentication|permission denied/i;

/** The error and its causes (`cause`, and an SDK's nested `error` object), outermost first. */
function chain(error: unknown): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const queue: unknown[] = [error];
  while (queue.length > 0 && out.length < 8) {
    const item = queue.shift();
    if (typeof item !== "object" || item === null || out.includes(item as Record<string, unknown>)) continue;
    const record = item as Record<string, unknown>;
    out.push(record);
    queue.push(record.cause, record.error, record.response);
  }
  return out;
}

function firstNumber(links: Record<string, unknown>[], fields: readonly string[]): number | undefined {
  for (const link of links) {
    for (const field of fields) {
      const value = link[field];
      if (typeof value === "number" && Number.isInteger(value)) return value;
      if (typeof value === "string" && /^\d{3}$/.test(value)) return Number(value);
    }
  }
  return undefined;
}

function strings(links: Record<string, unknown>[], fields: readonly string[]): string[] {
  const out: string[] = [];
  for (const link of links) for (const field of fields) if (typeof link[field] === "string") out.push(link[field] as string);
  return out;
}

function header(links: Record<string, unknown>[], name: string): string | undefined {
  for (const link of links) {
    const headers = link.headers as unknown;
    if (typeof headers !== "object" || headers === null) continue;
    if (typeof (headers as { get?: unknown }).get === "function") {
      const value = (headers as { get(name: string): unknown }).get(name);
      if (value !== null && value !== undefined) return String(value);
      continue;
    }
    for (const [key, value] of Object.entries(headers as Record<string, unknown>)) {
      if (key.toLowerCase() === name && value !== undefined && value !== null) return String(Array.isArray(value) ? value[0] : value);
    }
  }
  return undefined;
}

/**
 * Retry-After in ms: the `retry-after-ms` header, else `retry-after` (seconds or an HTTP
 * date, relative to `nowMs`), else a numeric `retryAfter` field (seconds).
 */
export function retryAfterMs(error: unknown, nowMs: number): number | undefined {
  const links = chain(error);
  const ms = header(links, "retry-after-ms");
  if (ms !== undefined && /^\s*\d+(\.\d+)?\s*$/.test(ms)) return Math.ceil(Number(ms));
  const raw = header(links, "retry-after") ?? links.map((l) => l.retryAfter).find((v) => typeof v === "number" || typeof v === "string");
  if (raw === undefined) return undefined;
  const text = String(raw).trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.ceil(Number(text) * 1000);
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

const TROUBLESHOOTING = /\s*Troubleshooting URL:\s*\S+\s*/gi;

/** A message without what SDKs and LangChain add around the provider's text: a leading status code, a troubleshooting URL. */
export function cleanProviderMessage(text: string, status?: number): string {
  let out = text.replace(TROUBLESHOOTING, " ").trim();
  if (status !== undefined) {
    if (out === `${status} status code (no body)`) return `HTTP ${status} (no body)`;
    const prefix = `${status} `;
    if (out.startsWith(prefix)) out = out.slice(prefix.length).trim();
  }
  return out;
}

/**
 * The provider's own message: the `message` of the error body the SDK parsed (OpenAI's
 * `error.message`, Anthropic's `error.error.message`), the deepest one found, else the
 * error's own message, cleaned.
 */
function providerMessage(error: unknown, links: Record<string, unknown>[], status: number | undefined): string {
  const body = links.filter((link) => !(link instanceof Error) && typeof link.message === "string" && (link.message as string).trim() !== "").at(-1);
  const raw = (body?.message as string | undefined) ?? ((error instanceof Error ? error.message : typeof error === "string" ? error : "") || strings(links, ["message"])[0] || "");
  return cleanProviderMessage(raw, status) || "unknown provider error";
}

/** Classify a provider error (rules in README.md, "Classification"). */
export function classifyProviderError(error: unknown, nowMs: number): ProviderFailure {
  const links = chain(error);
  const status = firstNumber(links, ["status", "statusCode", "status_code"]);
  const message = providerMessage(error, links, status);
  const codes = strings(links, ["code", "type", "name"]);
  const texts = [...codes, ...strings(links, ["message"])].join(" \u0000 ");
  const failure = (type: ProviderErrorType, retryable: boolean): ProviderFailure => {
    const out: ProviderFailure = { type, retryable, message };
    if (status !== undefined) out.status = status;
    if (retryable) {
      const after = retryAfterMs(error, nowMs);
      if (after !== undefined) out.retryAfterMs = after;
    }
    return out;
  };

  if (status === 401 || status === 403) return failure("auth", false);
  if ((status === undefined || status === 429 || status === 402) && QUOTA.test(texts)) return failure("quota", false);
  if (status === 429) return failure("rate_limited", true);
  if (status === 408) return failure("timeout", true);
  if (status !== undefined && status >= 500 && status <= 599) return failure("server_error", true);
  if (status !== undefined && status >= 400) return failure("provider_error", false);

  if (codes.some((c) => TIMEOUT_CODES.has(c))) return failure("timeout", true);
  if (codes.some((c) => NETWORK_CODES.has(c))) return failure("network", true);
  if (AUTH_TEXT.test(texts)) return failure("auth", false);
  if (RATE_TEXT.test(texts)) return failure("rate_limited", true);
  if (NETWORK_TEXT.test(texts)) return failure("network", true);
  if (TIMEOUT_TEXT.test(texts)) return failure("timeout", true);
  if (SERVER_TEXT.test(texts)) return failure("server_error", true);
  return failure("provider_error", false);
}
