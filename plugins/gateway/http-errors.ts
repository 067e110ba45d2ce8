import type { FastifyError } from "fastify";
import { isKeelError, type KeelErrorCode } from "../../kernel/errors.js";

/**
 * The body of every error answer (docs/http.md, "Errors"): Keel's `{ error, message,
 * pointer? }` plus `detail`, the same text as `message` (the field LangGraph's Python
 * server answers with, so clients written for it show the reason).
 */
export interface ErrorBody {
  error: string;
  message: string;
  detail: string;
  pointer?: string;
}

/** An error body from its parts: `detail` is always the message. */
export function errorBody(code: string, message: string, pointer?: string): ErrorBody {
  return { error: code, message, detail: message, ...(pointer !== undefined ? { pointer } : {}) };
}

/** An error a route throws on purpose: the status and the coded body to answer with. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: KeelErrorCode,
    message: string,
    readonly pointer?: string,
  ) {
    super(message);
    this.name = "HttpError";
  }

  body(): ErrorBody {
    return errorBody(this.code, this.message, this.pointer);
  }
}

export const notFound = (what: string) => new HttpError(404, "KEEL_ERR_HTTP_NOT_FOUND", `${what} not found`);

/**
 * Run-service errors that are the client's doing (or a retryable state of the server)
 * become 4xx/503 with an HTTP code; the message is the run service's own, which names
 * what to do. Anything else is a 500 whose message does not leak internals.
 */
const FROM_RUN_SERVICE: Partial<Record<string, [status: number, code: KeelErrorCode]>> = {
  KEEL_ERR_RUN_CONFLICT: [409, "KEEL_ERR_HTTP_RUN_ACTIVE"],
  // This code is named for the 409 itself: it says exactly what cannot be done.
  KEEL_ERR_RUN_ROLLBACK_UNAVAILABLE: [409, "KEEL_ERR_RUN_ROLLBACK_UNAVAILABLE"],
  KEEL_ERR_RUN_LIMIT: [429, "KEEL_ERR_HTTP_TOO_MANY_RUNS"],
  KEEL_ERR_RUN_NOT_FOUND: [404, "KEEL_ERR_HTTP_NOT_FOUND"],
  KEEL_ERR_THREAD_NOT_FOUND: [404, "KEEL_ERR_HTTP_NOT_FOUND"],
  KEEL_ERR_STORE_THREAD_NOT_FOUND: [404, "KEEL_ERR_HTTP_NOT_FOUND"],
  KEEL_ERR_STORE_CONFLICT: [409, "KEEL_ERR_HTTP_THREAD_EXISTS"],
  KEEL_ERR_STORE_THREAD_DELETED: [404, "KEEL_ERR_HTTP_THREAD_DELETED"],
  KEEL_ERR_RUN_SHUTTING_DOWN: [503, "KEEL_ERR_HTTP_UNAVAILABLE"],
  KEEL_ERR_RUN_JOIN_INCOMPLETE: [503, "KEEL_ERR_HTTP_UNAVAILABLE"],
  KEEL_ERR_RUN_JOIN_ABORTED: [503, "KEEL_ERR_HTTP_UNAVAILABLE"],
  KEEL_ERR_STREAM_EVENT_ID_INVALID: [400, "KEEL_ERR_HTTP_INVALID_BODY"],
  // Named for itself (like the rollback code): Redis is down, the request may be retried.
  KEEL_ERR_STREAM_UNAVAILABLE: [503, "KEEL_ERR_STREAM_UNAVAILABLE"],
  // Named for itself too: the database is away, the request may be retried.
  KEEL_ERR_STORE_UNAVAILABLE: [503, "KEEL_ERR_STORE_UNAVAILABLE"],
  KEEL_ERR_CONFIG_INVALID: [400, "KEEL_ERR_HTTP_INVALID_BODY"],
  KEEL_ERR_RUN_MODEL_NOT_ALLOWED: [400, "KEEL_ERR_HTTP_INVALID_BODY"],
  // The server's custom auth handler is broken: a 500 that names it.
  KEEL_ERR_AUTH_HANDLER_INVALID: [500, "KEEL_ERR_AUTH_HANDLER_INVALID"],
};

export function toHttpError(error: unknown): HttpError {
  if (error instanceof HttpError) return error;
  if (isKeelError(error)) {
    const mapped = FROM_RUN_SERVICE[error.code] ?? (error.code.startsWith("KEEL_ERR_HTTP_") ? [statusOfHttpCode(error.code), error.code] : undefined);
    if (mapped) return new HttpError(mapped[0], mapped[1], error.message, error.pointer);
  }
  const fastify = error as Partial<FastifyError> & { validation?: ValidationIssue[]; validationContext?: string };
  if (Array.isArray(fastify.validation)) return validationError(fastify.validation, fastify.validationContext ?? "body");
  switch (fastify.code) {
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return new HttpError(413, "KEEL_ERR_HTTP_BODY_TOO_LARGE", "the request body is larger than 1 MiB");
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
    case "FST_ERR_CTP_INVALID_CONTENT_LENGTH":
      return new HttpError(415, "KEEL_ERR_HTTP_UNSUPPORTED_MEDIA_TYPE", "send the body as application/json");
    default:
      break;
  }
  if (fastify.statusCode === 400 || error instanceof SyntaxError) {
    return new HttpError(400, "KEEL_ERR_HTTP_INVALID_BODY", `the body is not valid JSON: ${(error as Error).message}`, "");
  }
  return new HttpError(500, "KEEL_ERR_HTTP_INTERNAL", "internal error; see the server log");
}

interface ValidationIssue {
  instancePath?: string;
  keyword?: string;
  message?: string;
  params?: Record<string, unknown>;
}

/** AJV reports a missing property on its parent; the pointer names the property itself. */
function validationError(issues: ValidationIssue[], context: string): HttpError {
  const issue = issues[0] ?? {};
  let pointer = issue.instancePath ?? "";
  if (issue.keyword === "required" && typeof issue.params?.missingProperty === "string") pointer += `/${escapePointer(issue.params.missingProperty)}`;
  const where = context === "body" ? "body" : context === "querystring" ? "query string" : context === "params" ? "path" : context;
  const allowed = Array.isArray(issue.params?.allowedValues) ? ` (one of ${(issue.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")})` : "";
  const message = `invalid ${where} at \`${pointer || "/"}\`: ${issue.message ?? "invalid value"}${allowed}`;
  return new HttpError(400, "KEEL_ERR_HTTP_INVALID_BODY", message, pointer);
}

function escapePointer(segment: string): string {
  return segment.replace(/~/g, "~0").replace(/\//g, "~1");
}

const HTTP_CODE_STATUS: Partial<Record<KeelErrorCode, number>> = {
  KEEL_ERR_HTTP_INVALID_BODY: 400,
  KEEL_ERR_HTTP_UNAUTHORIZED: 401,
  KEEL_ERR_HTTP_NOT_FOUND: 404,
  KEEL_ERR_HTTP_THREAD_EXISTS: 409,
  KEEL_ERR_HTTP_RUN_ACTIVE: 409,
  KEEL_ERR_HTTP_BODY_TOO_LARGE: 413,
  KEEL_ERR_HTTP_UNSUPPORTED_MEDIA_TYPE: 415,
  KEEL_ERR_HTTP_TOO_MANY_RUNS: 429,
  KEEL_ERR_HTTP_UNAVAILABLE: 503,
  KEEL_ERR_HTTP_BODY_TOO_DEEP: 400,
  KEEL_ERR_HTTP_HOST_NOT_ALLOWED: 403,
  KEEL_ERR_HTTP_REQUEST_TIMEOUT: 408,
  KEEL_ERR_HTTP_HEADERS_TOO_LARGE: 431,
  KEEL_ERR_HTTP_TOO_MANY_CONNECTIONS: 429,
  KEEL_ERR_HTTP_MALFORMED_REQUEST: 400,
  KEEL_ERR_HTTP_FORBIDDEN: 403,
  KEEL_ERR_HTTP_NOT_IMPLEMENTED: 501,
};

function statusOfHttpCode(code: KeelErrorCode): number {
  return HTTP_CODE_STATUS[code] ?? 500;
}
