/**
 * CORS for browser clients on another origin (`keel serve --cors ORIGIN…`; off by
 * default). A small hook rather than `@fastify/cors` (not a dependency of Keel): a
 * preflight (`OPTIONS` with `Access-Control-Request-Method`) from an allowed origin is
 * answered 204 before authentication (browsers send no credentials on it); every other
 * answer to an allowed origin — errors, streams and waits included — carries
 * `Access-Control-Allow-Origin` and exposes the headers the SDK reads.
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import { KeelError } from "../../kernel/errors.js";

export interface CorsOptions {
  /** Allowed origins (`https://app.example:8443`), or `*` for any. */
  origins: readonly string[];
  /** Preflight cache lifetime, seconds (default 600). */
  maxAgeSeconds?: number;
}

const ALLOWED_METHODS = "GET, POST, PUT, PATCH, DELETE, OPTIONS";
/** What a preflight that names no headers is allowed: the SDK's own. */
const DEFAULT_ALLOWED_HEADERS = "content-type, authorization, x-api-key, last-event-id, x-auth-scheme";
/** Response headers a browser client may read: where a run lives, where its stream resumes, paging totals. */
export const CORS_EXPOSED_HEADERS = "content-location, location, x-pagination-total";

/** Check origins once, at start: each `*` or `scheme://host[:port]` with no path (`KEEL_ERR_CONFIG_INVALID`). */
export function readCorsOptions(options: CorsOptions): CorsOptions {
  if (options.origins.length === 0) throw new KeelError("KEEL_ERR_CONFIG_INVALID", "CORS needs at least one origin (or `*`)");
  for (const origin of options.origins) {
    if (origin === "*") continue;
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {
      parsed = undefined;
    }
    if (!parsed || (parsed.protocol !== "http:" && parsed.protocol !== "https:") || parsed.origin !== origin.replace(/\/$/, "")) {
      throw new KeelError("KEEL_ERR_CONFIG_INVALID", `CORS origin \`${origin}\` is not \`*\` or an origin like \`https://app.example\` (scheme, host, optional port; no path)`);
    }
  }
  const maxAgeSeconds = options.maxAgeSeconds ?? 600;
  if (!Number.isInteger(maxAgeSeconds) || maxAgeSeconds < 0) throw new KeelError("KEEL_ERR_CONFIG_INVALID", `CORS maxAgeSeconds must be an integer >= 0, got ${maxAgeSeconds}`);
  return { origins: options.origins.map((o) => (o === "*" ? o : new URL(o).origin)), maxAgeSeconds };
}

/**
 * Apply CORS to one request (from the `onRequest` hook). Returns true when it was a
 * preflight and has been answered.
 */
export function applyCors(options: CorsOptions, request: FastifyRequest, reply: FastifyReply): boolean {
  const origin = request.headers.origin;
  const any = options.origins.includes("*");
  const allowed = typeof origin === "string" && (any || options.origins.includes(origin));
  const res = reply.raw;
  res.setHeader("vary", "Origin");
  const preflight = request.method === "OPTIONS" && request.headers["access-control-request-method"] !== undefined;
  if (!allowed) {
    // A preflight from another origin: answered without CORS headers, so the browser refuses it.
    if (preflight) void reply.code(204).send();
    return preflight;
  }
  res.setHeader("access-control-allow-origin", any ? "*" : origin);
  if (!preflight) {
    res.setHeader("access-control-expose-headers", CORS_EXPOSED_HEADERS);
    return false;
  }
  const askedHeaders = request.headers["access-control-request-headers"];
  res.setHeader("access-control-allow-methods", ALLOWED_METHODS);
  res.setHeader("access-control-allow-headers", typeof askedHeaders === "string" && askedHeaders.trim() !== "" ? askedHeaders : DEFAULT_ALLOWED_HEADERS);
  res.setHeader("access-control-max-age", String(options.maxAgeSeconds ?? 600));
  void reply.code(204).send();
  return true;
}
