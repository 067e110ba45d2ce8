import { HttpError } from "../http-errors.js";
import type { GatewayApp } from "../context.js";

/**
 * The SDK's v2 thread protocol (`client.threads.stream(…)` and `client.threads.joinStream(…)`)
 * is not served: its routes answer 501 `KEEL_ERR_HTTP_NOT_IMPLEMENTED` (after authentication,
 * like every route) instead of a 404 that reads as a missing thread. The run-level streams
 * (`runs.stream`, `runs.joinStream`) are the supported way to follow a run.
 */
export function registerProtocolV2Routes(app: GatewayApp): void {
  const refuse = async (): Promise<never> => {
    throw new HttpError(
      501,
      "KEEL_ERR_HTTP_NOT_IMPLEMENTED",
      "the v2 thread protocol (threads.stream / threads.joinStream) is not served by Keel; use runs.stream(threadId, assistantId) and runs.joinStream(threadId, runId)",
    );
  };
  app.get("/threads/:tid/stream", refuse);
  app.post("/threads/:tid/commands", refuse);
  app.get("/threads/:tid/stream/events", refuse);
  app.post("/threads/:tid/stream/events", refuse);
}
