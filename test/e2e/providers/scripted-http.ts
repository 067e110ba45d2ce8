import Fastify, { type FastifyReply, type FastifyRequest } from "fastify";

/** One request the fake provider received. */
export interface ReceivedRequest {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
}

/** What the fake answers one request with: a JSON body, an SSE stream (optionally cut), or a stall. */
export type Reply =
  | { kind: "json"; status?: number; body: unknown; headers?: Record<string, string> }
  /** SSE frames; `drop: true` destroys the socket after the last frame (no clean end); `stall: true` keeps it open, silent. */
  | { kind: "sse"; frames: Array<{ event?: string; data: unknown }>; drop?: boolean; stall?: boolean };

/** A reply that depends on the request (e.g. JSON or SSE as the client asked). */
export type Script = (request: ReceivedRequest) => Reply;

export interface ScriptedServer {
  /** `http://127.0.0.1:PORT` */
  origin: string;
  /** Every request received, oldest first. */
  readonly requests: ReceivedRequest[];
  /** Queue replies: each request takes the next one; an unscripted request gets a 599 naming the problem. */
  script(...replies: Script[]): void;
  /** Requests received since `mark()`. */
  since(mark: number): ReceivedRequest[];
  close(): Promise<void>;
}

/**
 * A small Fastify app on 127.0.0.1, port 0, answering POSTs to `paths` from a queue of
 * scripted replies: provider-agnostic, the provider fakes only build the replies.
 */
export async function startScriptedServer(paths: readonly string[]): Promise<ScriptedServer> {
  const app = Fastify({ logger: false, forceCloseConnections: true });
  const requests: ReceivedRequest[] = [];
  const queue: Script[] = [];
  const stalled = new Set<FastifyReply>();

  const handle = async (request: FastifyRequest, reply: FastifyReply) => {
    const received: ReceivedRequest = { path: request.url, headers: request.headers, body: (request.body ?? {}) as Record<string, unknown> };
    requests.push(received);
    const next = queue.shift();
    if (!next) return reply.code(599).send({ error: { message: `the fake provider has no scripted reply for request ${requests.length}` } });
    const answer = next(received);
    if (answer.kind === "json") {
      return reply.code(answer.status ?? 200).headers(answer.headers ?? {}).send(answer.body);
    }
    reply.hijack();
    const raw = reply.raw;
    raw.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
    for (const frame of answer.frames) {
      const data = typeof frame.data === "string" ? frame.data : JSON.stringify(frame.data);
      raw.write(`${frame.event ? `event: ${frame.event}\n` : ""}data: ${data}\n\n`);
    }
    if (answer.drop) {
      // Let the frames reach the client, then cut the connection mid-response.
      setTimeout(() => raw.socket?.destroy(), 20);
    } else if (answer.stall) {
      stalled.add(reply);
    } else {
      raw.end();
    }
  };
  for (const path of paths) app.post(path, handle);
  await app.listen({ port: 0, host: "127.0.0.1" });
  const address = app.server.address() as { port: number };
  return {
    origin: `http://127.0.0.1:${address.port}`,
    requests,
    script: (...replies) => void queue.push(...replies),
    since: (mark) => requests.slice(mark),
    close: async () => {
      for (const reply of stalled) reply.raw.destroy();
      await app.close();
    },
  };
}
