/**
 * The one Server-Sent Events reader of Keel's own clients: `keel watch` (tools/cli) and the
 * run inspector's page (inspector/api.ts, bundled by esbuild). Dependency-free and only web
 * APIs (`ReadableStream`, `TextDecoder`), so it runs in Node 20 and in a browser alike; a
 * fetch response body is read, since EventSource cannot send the API key header.
 */

/** One Server-Sent Event as received (comments and `retry` fields are skipped). */
export interface SseMessage {
  event: string;
  data: unknown;
  id?: string;
}

/**
 * Read an event stream response body: yields each event with its data parsed as JSON
 * (left a string when it is not JSON). Lines may end in `\n`, `\r\n` or `\r`, split across
 * chunks anywhere. Ends when the body ends; aborting the request's signal ends it too.
 */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseMessage> {
  const decoder = new TextDecoder();
  let buffer = "";
  // A chunk's trailing `\r` waits for the next chunk: it may be the first half of a `\r\n`.
  let carriedCr = false;
  const reader = body.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      // At the end a carried `\r` ends its line after all.
      let text: string = (carriedCr ? "\r" : "") + (done ? "" : decoder.decode(value, { stream: true }));
      carriedCr = !done && text.endsWith("\r");
      if (carriedCr) text = text.slice(0, -1);
      buffer += text.replace(/\r\n?/g, "\n");
      for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const message = parseBlock(block);
        if (message) yield message;
      }
      if (done) break;
    }
  } finally {
    reader.releaseLock();
    await body.cancel().catch(() => undefined);
  }
}

function parseBlock(block: string): SseMessage | null {
  let event = "message";
  let id: string | undefined;
  const data: string[] = [];
  for (const line of block.split("\n")) {
    if (line === "" || line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "event") event = value;
    else if (field === "data") data.push(value);
    else if (field === "id") id = value;
  }
  if (data.length === 0) return null;
  const text = data.join("\n");
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: kept as text
  }
  return { event, data: parsed, ...(id !== undefined ? { id } : {}) };
}
