export interface BreakerSettings {
  failures: number;
  windowMs: number;
  openMs: number;
}

/**
 * A circuit breaker over retryable provider failures: `failures` of them within
 * `windowMs` open it for `openMs`. After that it is half-open: calls go through, the
 * first success closes it, the first failure opens it again at once.
 */
export class CircuitBreaker {
  private recent: number[] = [];
  private state: "closed" | "open" | "half-open" = "closed";
  private openUntil = 0;

  /** Milliseconds the breaker stays open from `now` (0 when calls may go through). */
  remainingOpenMs(now: number): number {
    if (this.state !== "open") return 0;
    if (now >= this.openUntil) {
      this.state = "half-open";
      return 0;
    }
    return this.openUntil - now;
  }

  /** Record one retryable failure; returns true when this failure opened the breaker. */
  recordFailure(now: number, settings: BreakerSettings): boolean {
    if (this.remainingOpenMs(now) > 0) return false;
    if (this.state === "half-open") return this.open(now, settings);
    this.recent = this.recent.filter((t) => now - t < settings.windowMs);
    this.recent.push(now);
    return this.recent.length >= settings.failures ? this.open(now, settings) : false;
  }

  recordSuccess(): void {
    this.state = "closed";
    this.recent = [];
  }

  private open(now: number, settings: BreakerSettings): boolean {
    this.state = "open";
    this.openUntil = now + settings.openMs;
    this.recent = [];
    return true;
  }
}
