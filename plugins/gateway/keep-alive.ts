import type { FastifyReply } from "fastify";
import { toHttpError } from "./http-errors.js";
import { toWireJson } from "./wire-json.js";

/**
 * Answer a JSON request whose answer may take long (`/runs/wait`, `/runs/:rid/join`), as
 * LangGraph's server does: when the answer is ready within `heartbeatMs` it is sent as
 * usual (an error keeps its status); otherwise the response starts (200,
 * `application/json`) and a newline goes out every `heartbeatMs` until the answer is
 * written after them — JSON parsers skip the leading whitespace, and proxies and clients
 * see a live connection. An error after the start can no longer change the status: the
 * body is then LangGraph's `{ "__error__": { error, message } }` (the SDK raises on it).
 */
export async function answerKeepingAlive(reply: FastifyReply, heartbeatMs: number, answer: Promise<unknown>): Promise<FastifyReply | void> {
  const settled = answer.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  let timer: ReturnType<typeof setTimeout> | undefined;
  const firstBeat = new Promise<"beat">((resolve) => (timer = setTimeout(() => resolve("beat"), heartbeatMs)));
  const early = await Promise.race([settled, firstBeat]);
  clearTimeout(timer);
  if (early !== "beat") {
    if (!early.ok) throw early.error;
    return reply.type("application/json; charset=utf-8").send(toWireJson(early.value));
  }

  reply.hijack();
  const res = reply.raw;
  const headers = Object.fromEntries(Object.entries(reply.getHeaders()).filter(([, value]) => value !== undefined)) as Record<string, string | number | string[]>;
  res.writeHead(200, { ...headers, "content-type": "application/json; charset=utf-8", "cache-control": "no-cache" });
  res.write("\n");
  const beat = setInterval(() => {
    if (!res.destroyed) res.write("\n");
  }, heartbeatMs);
  beat.unref();
  try {
    const result = await settled;
    if (res.destroyed) return;
    res.end(result.ok ? toWireJson(result.value) : toWireJson({ __error__: errorOf(result.error) }));
  } finally {
    clearInterval(beat);
  }
}

function errorOf(error: unknown): { error: string; message: string } {
  const { error: code, message } = toHttpError(error).body();
  return { error: code, message };
}
