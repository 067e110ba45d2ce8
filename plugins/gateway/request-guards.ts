/**
 * Checks on what a request carries before any route reads it (docs/http.md,
 * "Limits"): how deeply its JSON body nests, and — on a keyless loopback server — which
 * `Host` it names.
 */
import { HttpError } from "./http-errors.js";

/** Arrays and objects nested deeper than this are refused (400 `KEEL_ERR_HTTP_BODY_TOO_DEEP`). */
export const MAX_JSON_DEPTH = 64;

/**
 * Throw 400 `KEEL_ERR_HTTP_BODY_TOO_DEEP` when `value` nests arrays/objects deeper than
 * `max` (the top level is depth 1). Iterative: a hostile body cannot overflow the stack
 * here, and every later recursive walk (request hygiene, serializers) stays shallow.
 */
export function assertJsonDepth(value: unknown, max = MAX_JSON_DEPTH): void {
  if (value === null || typeof value !== "object") return;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (depth > max) throw new HttpError(400, "KEEL_ERR_HTTP_BODY_TOO_DEEP", `the JSON body nests arrays/objects deeper than ${max} levels`, "");
    const children = Array.isArray(node) ? node : Object.values(node as Record<string, unknown>);
    for (const child of children) if (child !== null && typeof child === "object") stack.push([child, depth + 1]);
  }
}

/** The host names a keyless loopback server answers to: `localhost`, `127.0.0.1`, `[::1]`, any port. */
export function isLoopbackHostHeader(host: string | undefined): boolean {
  if (host === undefined) return false;
  const value = host.trim().toLowerCase();
  const match = /^(localhost|127\.0\.0\.1|\[::1\])(?::(\d{1,5}))?$/.exec(value);
  return match !== null && (match[2] === undefined || Number(match[2]) <= 65535);
}

/** `127.0.0.0/8` and `::1` (also IPv4-mapped): the address a server is bound to. */
export function isLoopbackAddress(address: string): boolean {
  const a = address.toLowerCase();
  return a === "::1" || a.startsWith("127.") || a.startsWith("::ffff:127.");
}

/**
 * DNS rebinding: a page on `evil.example` whose name resolves to 127.0.0.1 would reach a
 * keyless loopback server from the browser. Such a server answers only requests whose
 * `Host` is a loopback name; others get 403 `KEEL_ERR_HTTP_HOST_NOT_ALLOWED`.
 */
export function assertLoopbackHost(host: string | undefined): void {
  if (!isLoopbackHostHeader(host)) {
    const shown = host === undefined ? "none" : `\`${host.slice(0, 100)}\``;
    throw new HttpError(403, "KEEL_ERR_HTTP_HOST_NOT_ALLOWED", `Host ${shown} is not a loopback name; a server without API keys answers only localhost, 127.0.0.1 and [::1]`);
  }
}
