import { describe, expect, it } from "vitest";
import { readSse, type SseMessage } from "../../tools/sse/sse-reader.js";

function body(chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

async function all(chunks: string[]): Promise<SseMessage[]> {
  const messages: SseMessage[] = [];
  for await (const message of readSse(body(chunks))) messages.push(message);
  return messages;
}

/** The SSE reader `keel watch` and the run inspector's page share (tools/sse/sse-reader.ts). */
describe("readSse", () => {
  it("parses events, ids, JSON and multi-line data; skips comments and data-less blocks", async () => {
    expect(await all([": heartbeat\n\n", "event: run\nid: 5-1\ndata: {\"run_id\":\"r1\"}\n\n", "retry: 10\n\n", "data: one\ndata: two\n\n"])).toEqual([
      { event: "run", id: "5-1", data: { run_id: "r1" } },
      { event: "message", data: "one\ntwo" },
    ]);
  });

  it("a CRLF split across chunks ends one line, not two (no event is cut in half)", async () => {
    expect(await all(["event: end\r", "\ndata: null\r\n\r", "\n", "event: a\rdata: 1\r\r"])).toEqual([
      { event: "end", data: null },
      { event: "a", data: 1 },
    ]);
  });
});
