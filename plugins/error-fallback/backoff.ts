/**
 * Full-jitter exponential backoff: the wait after failed attempt `n` (1-based) is a
 * uniform draw in [0, min(capMs, baseMs · 2^(n−1))], rounded to whole ms.
 */
export function backoffDelay(failedAttempt: number, baseMs: number, capMs: number, random: () => number): number {
  const ceiling = Math.min(capMs, baseMs * 2 ** Math.max(0, failedAttempt - 1));
  const draw = Math.min(Math.max(random(), 0), 1);
  return Math.round(draw * ceiling);
}

/** Resolve after `ms`, or reject with the signal's reason as soon as it aborts. */
export function sleepWithSignal(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason ?? new Error("aborted"));
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason ?? new Error("aborted"));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
