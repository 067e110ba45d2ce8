/**
 * A `fetch` for provider SDK clients that bounds silence: when the provider sends no
 * byte for `idleMs` — before the response headers, or between two chunks of the body
 * (a stalled stream) — the request is aborted and the read fails with a
 * `ProviderIdleTimeoutError` (code `ETIMEDOUT`), which error-fallback classifies as a
 * retryable `timeout`. A body the caller is not reading is never timed out.
 */

/** Default silence bound of `keel serve`'s provider clients. */
export const DEFAULT_PROVIDER_IDLE_MS = 120_000;

export class ProviderIdleTimeoutError extends Error {
  readonly code = "ETIMEDOUT";
  constructor(readonly idleMs: number) {
    super(`the provider sent nothing for ${idleMs} ms (idle timeout)`);
    this.name = "ProviderIdleTimeoutError";
  }
}

type Fetch = typeof fetch;

export function idleTimeoutFetch(idleMs: number, base: Fetch = fetch): Fetch {
  return async (input, init) => {
    const controller = new AbortController();
    const outer = init?.signal ?? undefined;
    const onOuterAbort = () => controller.abort(outer?.reason);
    if (outer?.aborted) controller.abort(outer.reason);
    else outer?.addEventListener("abort", onOuterAbort, { once: true });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const idle = new ProviderIdleTimeoutError(idleMs);
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => controller.abort(idle), idleMs);
    };
    const done = () => {
      clearTimeout(timer);
      outer?.removeEventListener("abort", onOuterAbort);
    };
    const timedOut = () => controller.signal.aborted && controller.signal.reason === idle;

    arm();
    let response: Response;
    try {
      response = await base(input, { ...init, signal: controller.signal });
    } catch (error) {
      done();
      throw timedOut() ? idle : error;
    }
    clearTimeout(timer);
    const source = response.body;
    if (!source) {
      done();
      return response;
    }
    const reader = source.getReader();
    const body = new ReadableStream<Uint8Array>({
      async pull(stream) {
        arm();
        try {
          const chunk = await reader.read();
          clearTimeout(timer);
          if (chunk.done) {
            done();
            stream.close();
          } else {
            stream.enqueue(chunk.value);
          }
        } catch (error) {
          done();
          stream.error(timedOut() ? idle : error);
        }
      },
      cancel(reason) {
        done();
        return reader.cancel(reason);
      },
    });
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
