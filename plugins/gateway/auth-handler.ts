/**
 * Custom authentication and authorization, the LangGraph way (docs/http.md,
 * "Custom auth"): a handler authenticates each request (→ the user's identity and
 * permissions) and may authorize each action on a resource (`threads:create`,
 * `threads:read`, `store:put`, …), allowing it, refusing it, or narrowing it with a
 * metadata filter. A LangGraph `Auth` instance (`@langchain/langgraph-sdk/auth`) is such a
 * handler once adapted (`toAuthHandler`); so is any object with `authenticate`.
 */
import { KeelError } from "../../kernel/errors.js";

/** The resources a handler authorizes actions on (LangGraph's). */
export type AuthResource = "threads" | "assistants" | "crons" | "store";

/** A user as the handler returns it: a string is the identity alone. */
export interface AuthIdentity {
  identity: string;
  permissions?: string[];
  display_name?: string;
  is_authenticated?: boolean;
  [key: string]: unknown;
}

/** The user after normalization (as LangGraph's server passes it to handlers). */
export interface AuthUser {
  identity: string;
  permissions: string[];
  display_name: string;
  is_authenticated: boolean;
  [key: string]: unknown;
}

/** A metadata filter: each key must equal the value, or (`$contains`) be an array holding it. */
export type AuthFilters = Record<string, unknown>;

/** What an authorization callback is told (LangGraph's callback parameter). */
export interface AuthEvent {
  event: string;
  resource: AuthResource;
  action: string;
  /** The request's value for this action; a handler may change it (e.g. add `metadata.owner` on create). */
  value: Record<string, unknown>;
  user: AuthUser;
  permissions: string[];
}

/** `true`, `undefined` or `null`: allowed; `false`: refused; an object: allowed for resources whose metadata match it. */
export type AuthResult = boolean | AuthFilters | null | undefined | void;

/** The `auth` port: what `keel serve --auth FILE` or a `--plugin` providing `auth` gives the gateway. */
export interface AuthHandler {
  /** Who sends `request` (a web `Request`: method, URL and headers; no body). Throw an error with `status` 401/403 to refuse. */
  authenticate(request: Request): Promise<AuthIdentity | string> | AuthIdentity | string;
  /** Decide one action; absent: everything an authenticated user asks is allowed (ownership still holds). */
  authorize?(event: AuthEvent): Promise<AuthResult> | AuthResult;
}

/** The shape of a LangGraph `Auth` instance that matters here. */
interface LangGraphAuthLike {
  "~handlerCache": {
    authenticate?: (request: Request) => unknown;
    callbacks?: Record<string, (event: AuthEvent) => unknown>;
  };
}

/**
 * The handler a module exports: a LangGraph `Auth` instance (its `authenticate` and `.on(…)`
 * callbacks, looked up as LangGraph does: `resource:action`, `resource`, `*:action`, `*`), or
 * an `AuthHandler` as is. Anything else: `KEEL_ERR_AUTH_HANDLER_INVALID`.
 */
export function toAuthHandler(exported: unknown, where = "the auth module"): AuthHandler {
  if (isLangGraphAuth(exported)) return fromLangGraphAuth(exported, where);
  if (exported !== null && typeof exported === "object" && typeof (exported as AuthHandler).authenticate === "function") {
    const handler = exported as AuthHandler;
    return {
      authenticate: (request) => handler.authenticate(request),
      ...(typeof handler.authorize === "function" ? { authorize: (event: AuthEvent) => handler.authorize!(event) } : {}),
    };
  }
  throw new KeelError("KEEL_ERR_AUTH_HANDLER_INVALID", `${where} exports neither a LangGraph \`Auth\` instance nor an object with an \`authenticate(request)\` function`);
}

function isLangGraphAuth(value: unknown): value is LangGraphAuthLike {
  return value !== null && typeof value === "object" && "~handlerCache" in value && typeof (value as LangGraphAuthLike)["~handlerCache"] === "object";
}

function fromLangGraphAuth(auth: LangGraphAuthLike, where: string): AuthHandler {
  const cache = auth["~handlerCache"];
  if (typeof cache.authenticate !== "function") {
    throw new KeelError("KEEL_ERR_AUTH_HANDLER_INVALID", `${where}: the \`Auth\` instance has no \`.authenticate(…)\` callback`);
  }
  const authenticate = cache.authenticate;
  return {
    authenticate: (request) => authenticate(request) as Promise<AuthIdentity | string>,
    authorize: (event) => {
      const callbacks = cache.callbacks ?? {};
      const key = [`${event.resource}:${event.action}`, event.resource, `*:${event.action}`, "*"].find((candidate) => typeof callbacks[candidate] === "function");
      return key === undefined ? undefined : (callbacks[key]!(event) as Promise<AuthResult>);
    },
  };
}

/** The handler's answer as a user (a string is the identity); anything else: `KEEL_ERR_AUTH_HANDLER_INVALID`. */
export function normalizeUser(answer: unknown): AuthUser {
  if (typeof answer === "string" && answer !== "") return { identity: answer, permissions: [], display_name: answer, is_authenticated: true };
  if (answer !== null && typeof answer === "object" && typeof (answer as AuthIdentity).identity === "string" && (answer as AuthIdentity).identity !== "") {
    const given = answer as AuthIdentity;
    const permissions = Array.isArray(given.permissions) ? given.permissions.filter((p): p is string => typeof p === "string") : [];
    return { ...given, identity: given.identity, permissions, display_name: typeof given.display_name === "string" ? given.display_name : given.identity, is_authenticated: given.is_authenticated ?? true };
  }
  throw new KeelError("KEEL_ERR_AUTH_HANDLER_INVALID", "the auth handler's `authenticate` returned neither a non-empty string nor an object with a non-empty string `identity`");
}

/** Whether `metadata` satisfies a handler's filters (LangGraph's matching: equality, `$eq`, `$contains`). */
export function authMatches(metadata: Record<string, unknown> | null | undefined, filters: AuthFilters | undefined): boolean {
  if (filters === undefined) return true;
  for (const [key, wanted] of Object.entries(filters)) {
    const actual = metadata?.[key];
    if (wanted !== null && typeof wanted === "object" && !Array.isArray(wanted)) {
      const ops = wanted as { $eq?: unknown; $contains?: unknown };
      if ("$eq" in ops && !sameJson(actual, ops.$eq)) return false;
      if ("$contains" in ops) {
        if (!Array.isArray(actual)) return false;
        const needles = Array.isArray(ops.$contains) ? ops.$contains : [ops.$contains];
        if (!needles.every((needle) => actual.some((item) => sameJson(item, needle)))) return false;
      }
    } else if (!sameJson(actual, wanted)) {
      return false;
    }
  }
  return true;
}

/** The filters' plain equalities (`key: value`, `key: { $eq }`): what a store search can apply itself. */
export function equalityFilters(filters: AuthFilters | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, wanted] of Object.entries(filters ?? {})) {
    if (wanted !== null && typeof wanted === "object" && !Array.isArray(wanted)) {
      if ("$eq" in wanted) out[key] = (wanted as { $eq: unknown }).$eq;
    } else {
      out[key] = wanted;
    }
  }
  return out;
}

function sameJson(a: unknown, b: unknown): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}
