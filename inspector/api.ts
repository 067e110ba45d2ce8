/**
 * The page's only way to the server: `fetch` with the API key as the `x-api-key` header
 * (kept in sessionStorage; never in a URL), and Server-Sent Events read through a fetch
 * stream (EventSource cannot send headers).
 */
import { readSse as readSseBody, type SseMessage } from "../tools/sse/sse-reader.js";

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

export type SseEvent = SseMessage;

/**
 * Read an SSE route until it ends or `signal` aborts; `onEvent` gets every event (comments
 * and heartbeats skipped). Resolves when the server closes the stream.
 */
export async function readSse(path: string, onEvent: (event: SseEvent) => void, signal: AbortSignal): Promise<void> {
  const response = await fetch(path, { headers: headers({ accept: "text/event-stream" }), signal });
  if (!response.ok) throw await failure(response);
  if (!response.body) return;
  for await (const event of readSseBody(response.body)) onEvent(event);
}

export const enc = encodeURIComponent;
