/**
 * The gateway's side of custom auth: authenticate a request with the handler (in the
 * `onRequest` hook) and authorize an action of a route (`ctx.authorize`). The hook points
 * routes call are documented in plugins/gateway/README.md, "Route modules: auth and TTL hook
 * points"; how the handler is asked, in docs/http.md, "Custom auth".
 */
import type { FastifyRequest } from "fastify";
import { isKeelError } from "../../kernel/errors.js";
import { authMatches, normalizeUser, type AuthFilters, type AuthHandler, type AuthResource, type AuthUser } from "./auth-handler.js";
import { HttpError, notFound } from "./http-errors.js";

declare module "fastify" {
  interface FastifyRequest {
    /** The user the custom auth handler authenticated (absent with API keys or no auth). */
    authUser?: AuthUser;
  }
}

/** What `ctx.authorize` answers when the action is allowed. */
export interface AuthDecision<T extends Record<string, unknown> = Record<string, unknown>> {
  /** The value after the handler saw it (it may have added metadata, e.g. an owner). */
  value: T;
  /** The handler's metadata filter, if it returned one. */
  filters?: AuthFilters;
  /** Whether a resource's metadata satisfies the filter (always true without one). */
  matches(metadata: Record<string, unknown> | null | undefined): boolean;
}

export interface AuthorizeOptions {
  /**
   * The status of a refusal: 404 (`KEEL_ERR_HTTP_NOT_FOUND`, as for another user's resource)
   * or 403 (`KEEL_ERR_HTTP_FORBIDDEN`). Default: 404 for `read`, `update`, `delete`,
   * `create_run` and `get` (the action names an existing resource), 403 otherwise.
   */
  refusal?: 403 | 404;
  /** What the 404 names (`thread \`t1\``). Default: the resource. */
  what?: string;
}

const SCOPED_ACTIONS = new Set(["read", "update", "delete", "create_run", "get"]);

/** The user the handler says sent the request; 401/403 from the handler's own `status`, 500 for a handler bug. */
export async function authenticateWith(handler: AuthHandler, request: FastifyRequest): Promise<AuthUser> {
  const url = new URL(request.url, `http://${request.headers.host ?? "localhost"}`);
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, String(one));
  }
  let answer: unknown;
  try {
    answer = await handler.authenticate(new Request(url, { method: request.method, headers }));
  } catch (error) {
    throw refusalOf(error, 401, "authentication failed");
  }
  return normalizeUser(answer);
}

/**
 * Ask the handler about one action. Allowed: the decision (the value as the handler left
 * it, its filter). Refused (`false`, or a thrown error with a `status`): a 404 or 403 per
 * `options.refusal`; a thrown 401 stays 401. Without a handler (API keys, or a handler
 * without `authorize`), everything is allowed and ownership alone decides.
 */
export async function authorizeAction<T extends Record<string, unknown>>(
  handler: AuthHandler | undefined,
  request: FastifyRequest,
  resource: AuthResource,
  action: string,
  value: T,
  options: AuthorizeOptions = {},
): Promise<AuthDecision<T>> {
  const user = request.authUser;
  if (!handler?.authorize || !user) return decision(value, undefined);
  const refusal = options.refusal ?? (SCOPED_ACTIONS.has(action) ? 404 : 403);
  const event = `${resource}:${action}`;
  const refuse = () => (refusal === 404 ? notFound(options.what ?? resource) : new HttpError(403, "KEEL_ERR_HTTP_FORBIDDEN", `the auth handler refused \`${event}\``));
  let result: unknown;
  try {
    result = await handler.authorize({ event, resource, action, value, user, permissions: user.permissions });
  } catch (error) {
    const status = statusOf(error);
    if (status === 401) throw refusalOf(error, 401, "authentication failed");
    if (status !== undefined && status >= 400 && status < 500) throw refuse();
    throw error;
  }
  if (result === undefined || result === null || result === true) return decision(value, undefined);
  if (result === false) throw refuse();
  if (typeof result !== "object" || Array.isArray(result)) {
    throw new HttpError(500, "KEEL_ERR_AUTH_HANDLER_INVALID", `the auth handler's \`${event}\` callback returned a ${Array.isArray(result) ? "list" : typeof result}; expected a filter object, true, false or nothing`);
  }
  return decision(value, result as AuthFilters);
}

function decision<T extends Record<string, unknown>>(value: T, filters: AuthFilters | undefined): AuthDecision<T> {
  return { value, ...(filters ? { filters } : {}), matches: (metadata) => authMatches(metadata, filters) };
}

function statusOf(error: unknown): number | undefined {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === "number" ? status : undefined;
}

/** A handler's thrown error as an answer: its 401 or 403 (with its message); a handler bug stays a 500. */
function refusalOf(error: unknown, fallback: 401, what: string): unknown {
  if (error instanceof HttpError || isKeelError(error)) return error;
  const status = statusOf(error);
  if (status === undefined) return error;
  const message = error instanceof Error && error.message ? error.message : what;
  return status === 403 ? new HttpError(403, "KEEL_ERR_HTTP_FORBIDDEN", message) : new HttpError(fallback, "KEEL_ERR_HTTP_UNAUTHORIZED", message);
}
