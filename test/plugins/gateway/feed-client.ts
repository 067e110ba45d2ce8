import { readSse, type SseMessage } from "../../../tools/sse/sse-reader.js";

/** A live `GET /keel/feed` over real HTTP: every event received so far, and a wait for the next one that matches. */
export interface FeedClient {
  status: number;
  messages: SseMessage[];
  /** The first message from index `from` on that matches (waits for it; 10 s at most). */
  waitFor(match: (message: SseMessage) => boolean, what: string, from?: number): Promise<SseMessage>;
  close(): void;
}

export async function openFeed(baseUrl: string, headers: Record<string, string>, query = ""): Promise<FeedClient> {
  const controller = new AbortController();
  const response = await fetch(`${baseUrl}/keel/feed${query}`, { headers, signal: controller.signal });
  const messages: SseMessage[] = [];
  let wake: () => void = () => undefined;
  let ended = false;
  if (response.ok && response.body) {
    void (async () => {
      try {
        for await (const message of readSse(response.body!)) {
          messages.push(message);
          wake();
        }
      } catch {
        // aborted by close()
      } finally {
        ended = true;
        wake();
      }
    })();
  }
  return {
    status: response.status,
    messages,
    async waitFor(match, what, from = 0) {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const found = messages.slice(from).find(match);
        if (found) return found;
        if (ended || Date.now() > deadline) throw new Error(`feed: no ${what} (got ${messages.map((m) => `${m.event}:${JSON.stringify(m.data).slice(0, 120)}`).join(" | ")})`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 200);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    },
    close: () => controller.abort(),
  };
}

/** A `run` event of this run matching `fields`. */
export const runEvent =
  (runId: string, fields: (summary: Record<string, unknown>) => boolean = () => true) =>
  (message: SseMessage): boolean =>
    message.event === "run" && (message.data as { run_id?: string }).run_id === runId && fields(message.data as Record<string, unknown>);
