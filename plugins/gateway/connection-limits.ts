/**
 * Slow and hostile clients (plugins/gateway/README.md, "Limits"): how long the server
 * waits for a request, how long a silent connection may stay, and how many connections
 * one remote address may hold. Every refusal is a coded JSON answer.
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { KeelError, type KeelErrorCode } from "../../kernel/errors.js";

export interface ConnectionLimits {
  /** Until the request's headers are complete (Node's `headersTimeout`). Default 10 s. */
  headersTimeoutMs: number;
  /** Until the whole request, body included, is received (Fastify's `requestTimeout`). Default 30 s. Streams and long waits are not cut: it ends when the request is in. */
  requestTimeoutMs: number;
  /**
   * A connection with no traffic this long (Fastify's `connectionTimeout`) is closed while it
   * is the client's turn — sending its request, or reading an answer it stopped reading — and
   * kept while the server works on an answer (a long `/wait`, a stream between heartbeats). Default 60 s.
   */
  idleTimeoutMs: number;
  /** An idle keep-alive connection between requests (Fastify's `keepAliveTimeout`). Default 10 s. */
  keepAliveTimeoutMs: number;
  /** Open connections per remote address; one more is answered 429 `KEEL_ERR_HTTP_TOO_MANY_CONNECTIONS` and closed. Default 256. */
  maxConnectionsPerClient: number;
}

export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  idleTimeoutMs: 60_000,
  keepAliveTimeoutMs: 10_000,
  maxConnectionsPerClient: 256,
};

/** Defaults applied and bounds checked (KEEL_ERR_CONFIG_INVALID): integers ≥ 1, headers within the request timeout. */
export function readConnectionLimits(partial: Partial<ConnectionLimits> = {}): ConnectionLimits {
  const limits = { ...DEFAULT_CONNECTION_LIMITS, ...partial };
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isInteger(value) || value < 1) throw new KeelError("KEEL_ERR_CONFIG_INVALID", `gateway limit \`${name}\` must be an integer ≥ 1, got \`${value}\``, { pointer: `/limits/${name}` });
  }
  if (limits.headersTimeoutMs > limits.requestTimeoutMs) {
    throw new KeelError("KEEL_ERR_CONFIG_INVALID", `gateway limit \`headersTimeoutMs\` (${limits.headersTimeoutMs}) must not exceed \`requestTimeoutMs\` (${limits.requestTimeoutMs})`, {
      pointer: "/limits/headersTimeoutMs",
    });
  }
  return limits;
}

/** The Node server options Fastify passes on (`http`), plus its own timeouts. */
export function serverTimeouts(limits: ConnectionLimits) {
  return {
    http: {
      headersTimeout: limits.headersTimeoutMs,
      // How often Node checks the two request timeouts (its default, 30 s, would let a slow client stay that much longer).
      connectionsCheckingInterval: Math.max(10, Math.min(1_000, Math.floor(limits.headersTimeoutMs / 4))),
    },
    requestTimeout: limits.requestTimeoutMs,
    connectionTimeout: limits.idleTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
  };
}

/** A raw HTTP answer for a socket Fastify never saw (or cannot answer on): a coded JSON body, then close. */
function rawAnswer(socket: Socket, status: number, reason: string, code: KeelErrorCode, message: string): void {
  const body = JSON.stringify({ error: code, message, detail: message });
  if (socket.writable) {
    socket.write(`HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
  }
}

/** The response being written on a socket, if any (Node keeps it on the socket; only read here). */
function inFlight(socket: Socket): ServerResponse | undefined {
  return (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage ?? undefined;
}

/**
 * Fastify's `clientErrorHandler`: a request Node gave up on before any route ran (headers
 * or body too slow, headers too large, not HTTP) gets a coded JSON answer — unless a
 * response already started on the socket — and the socket is closed.
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === "ECONNRESET" || socket.destroyed) return;
  if (!inFlight(socket)?.headersSent) {
    if (error.code === "ERR_HTTP_REQUEST_TIMEOUT") rawAnswer(socket, 408, "Request Timeout", "KEEL_ERR_HTTP_REQUEST_TIMEOUT", "the request (headers and body) did not arrive in time");
    else if (error.code === "HPE_HEADER_OVERFLOW") rawAnswer(socket, 431, "Request Header Fields Too Large", "KEEL_ERR_HTTP_HEADERS_TOO_LARGE", "the request headers are larger than the server accepts");
    else rawAnswer(socket, 400, "Bad Request", "KEEL_ERR_HTTP_MALFORMED_REQUEST", "the request is not valid HTTP/1.1");
  }
  socket.destroy();
}

/** `::ffff:127.0.0.1` and `127.0.0.1` are one client. */
function clientKey(socket: Socket): string {
  const address = socket.remoteAddress ?? "unknown";
  return address.startsWith("::ffff:") ? address.slice(7) : address;
}

/** What `guardConnections` tracks. */
export interface ConnectionGuard {
  /** Open connections counted for a remote address. */
  openBy(address: string): number;
  /** Whether a socket was opened over its address's cap: its request is answered 429 and the socket closed. */
  overCap(socket: Socket): boolean;
}

/**
 * Install the per-client connection cap and the idle rule on a server. A connection over
 * its address's cap is not counted; its first request is answered 429
 * `KEEL_ERR_HTTP_TOO_MANY_CONNECTIONS` (`connection: close`), and one that sends nothing
 * is closed after a second.
 */
export function guardConnections(server: Server, limits: ConnectionLimits): ConnectionGuard {
  const open = new Map<string, number>();
  const refused = new WeakSet<Socket>();
  server.on("connection", (socket: Socket) => {
    const key = clientKey(socket);
    const count = (open.get(key) ?? 0) + 1;
    if (count > limits.maxConnectionsPerClient) {
      refused.add(socket);
      socket.setTimeout(1_000);
      return;
    }
    open.set(key, count);
    socket.once("close", () => {
      const left = (open.get(key) ?? 1) - 1;
      if (left <= 0) open.delete(key);
      else open.set(key, left);
    });
  });
  // With a `timeout` listener Node no longer destroys idle sockets itself: this decides.
  server.on("timeout", (socket: Socket) => {
    const response = inFlight(socket);
    const request = (response as (ServerResponse & { req?: IncomingMessage }) | undefined)?.req;
    const serverIsWorking = !refused.has(socket) && response !== undefined && !response.writableEnded && request?.complete === true && socket.writableLength === 0;
    if (!serverIsWorking) socket.destroy();
  });
  return { openBy: (address) => open.get(address) ?? 0, overCap: (socket) => refused.has(socket) };
}
