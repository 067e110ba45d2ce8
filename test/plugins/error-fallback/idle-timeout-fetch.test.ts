import { describe, expect, it } from "vitest";
import { ModelCallError } from "../../../kernel/loop/model-call.js";
import { classifyProviderError, idleTimeoutFetch, ProviderIdleTimeoutError } from "../../../plugins/error-fallback/index.js";

/** A base fetch whose response headers never come (until the signal aborts). */
const silentFetch: typeof fetch = (_input, init) =>
  new Promise((_resolve, reject) => init?.signal?.addEventListener("abort", () => reject(Object.assign(new Error("aborted"), { name: "AbortError" })), { once: true }));

/** A base fetch answering 200 with `chunks` at once, then (stall) keeping the body open, silent. */
function bodyFetch(chunks: string[], stall: boolean): typeof fetch {
  return async (_input, init) => {
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
        if (!stall) controller.close();
        init?.signal?.addEventListener("abort", () => controller.error(init.signal!.reason), { once: true });
      },
    });
    return new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } });
  };
}

describe("idleTimeoutFetch: a silent provider fails the attempt", () => {
  it("rejects with ProviderIdleTimeoutError (ETIMEDOUT) when no headers come within idleMs", async () => {
    const error = await idleTimeoutFetch(20, silentFetch)("http://provider/v1").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderIdleTimeoutError);
    expect(error).toMatchObject({ code: "ETIMEDOUT", idleMs: 20, message: "the provider sent nothing for 20 ms (idle timeout)" });
    // error-fallback retries it as a timeout, also when an SDK wraps it as the cause.
    expect(classifyProviderError(new ModelCallError(Object.assign(new Error("Connection error."), { cause: error })), 0)).toMatchObject({ type: "timeout", retryable: true });
  });

  it("errors the body when a stream stalls after some chunks, keeping the chunks already sent", async () => {
    const response = await idleTimeoutFetch(20, bodyFetch(["data: a\n\n"], true))("http://provider/v1");
    const reader = response.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("data: a\n\n");
    await expect(reader.read()).rejects.toBeInstanceOf(ProviderIdleTimeoutError);
  });

  it("passes a complete response through unchanged (status, headers, body)", async () => {
    const response = await idleTimeoutFetch(1000, bodyFetch(["he", "llo"], false))("http://provider/v1");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    expect(await response.text()).toBe("hello");
  });

  it("aborts with the caller's reason when the caller's signal aborts", async () => {
    const controller = new AbortController();
    const pending = idleTimeoutFetch(60_000, silentFetch)("http://provider/v1", { signal: controller.signal });
    controller.abort(new Error("run cancelled"));
    const error = await pending.catch((e: unknown) => e);
    expect(error).not.toBeInstanceOf(ProviderIdleTimeoutError);
    expect((error as Error).name).toBe("AbortError");
  });
});
