/**
 * The page's only way to the server: `fetch` with the API key as the `x-api-key` header
 * (kept in sessionStorage; never in a URL), and Server-Sent Events read through a fetch
 * stream (EventSource cannot send headers).
 */
const KEY_STORAGE = "keel.inspector.apiKey";

export class AuthRequired extends Error {
  constructor(message: string) {
    super(message);
    this.name = "AuthRequired";
  }
}

/** A non-2xx answer, with Keel's error body `{ error, message }` when there is one. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

export function apiKey(): string | null {
  try {
    return sessionStorage.getItem(KEY_STORAGE);
  } catch {
    return null;
  }
}

export function setApiKey(key: string | null): void {
  if (key === null || key === "") sessionStorage.removeItem(KEY_STORAGE);
  else sessionStorage.setItem(KEY_STORAGE, key);
}

function headers(extra: Record<string, string> = {}): Record<string, string> {
  const key = apiKey();
  return { ...extra, ...(key ? { "x-api-key": key } : {}) };
}

async function failure(response: Response): Promise<Error> {
  let code = `HTTP_${response.status}`;
  let message = response.statusText;
  try {
    const body = (await response.json()) as { error?: string; message?: string };
    if (typeof body.error === "string") code = body.error;
    if (typeof body.message === "string") message = body.message;
  } catch {
    // not JSON
  }
  if (response.status === 401) return new AuthRequired(message);
  return new ApiError(response.status, code, message);
}

export async function getJson<T>(path: string): Promise<T> {
  const response = await fetch(path, { headers: headers() });
  if (!response.ok) throw await failure(response);
  return (await response.json()) as T;
}

export async function postJson<T>(path: string, body: unknown): Promise<T> {
  const response = await fetch(path, { method: "POST", headers: headers({ "content-type": "application/json" }), body: JSON.stringify(body) });
  if (!response.ok) throw await failure(response);
  const text = await response.text();
  return (text.trim() === "" ? undefined : JSON.parse(text)) as T;
}

export interface SseEvent {
  event: string;
  data: unknown;
  id?: string;
}

/**
 * Read an SSE route until it ends or `signal` aborts; `onEvent` gets every event (comments
 * and heartbeats skipped). Resolves when the server closes the stream.
 */
export async function readSse(path: string, onEvent: (event: SseEvent) => void, signal: AbortSignal): Promise<void> {
  const response = await fetch(path, { headers: headers({ accept: "text/event-stream" }), signal });
  if (!response.ok) throw await failure(response);
  if (!response.body) return;
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let boundary: number;
    while ((boundary = buffer.search(/\r?\n\r?\n/)) >= 0) {
      const block = buffer.slice(0, boundary);
      buffer = buffer.slice(boundary).replace(/^\r?\n\r?\n/, "");
      const parsed = parseBlock(block);
      if (parsed) onEvent(parsed);
    }
  }
}

function parseBlock(block: string): SseEvent | undefined {
  let event = "message";
  let id: string | undefined;
  const data: string[] = [];
  for (const line of block.split(/\r?\n/)) {
    if (line === "" || line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "event") event = value;
    else if (field === "data") data.push(value);
    else if (field === "id") id = value;
  }
  if (data.length === 0) return undefined;
  const text = data.join("\n");
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // a plain text payload
  }
  return { event, data: parsed, ...(id !== undefined ? { id } : {}) };
}

export const enc = encodeURIComponent;
