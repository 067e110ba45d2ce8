import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { HttpError } from "./http-errors.js";

/**
 * Webhooks (LangGraph's `webhook` run field): when the run has ended, its Run record (plus
 * `values`, `run_ended_at`, `webhook_sent_at`, and `error` for a failed run) is POSTed as
 * JSON to the URL. Off unless the server names the hosts it may call (`allowHosts`):
 * `example.com` (that host), `*.example.com` (its subdomains), `*` (any host). A loopback
 * host (`localhost`, 127.0.0.0/8, `::1`, or a name resolving to one) is refused unless the
 * list names it exactly — a wildcard never reaches the server's own machine.
 */
export interface WebhookOptions {
  allowHosts: readonly string[];
  /** Per attempt. Default 10 000 ms. */
  timeoutMs?: number;
  /** Attempts in all (network error, timeout, 429 or 5xx are retried). Default 3. */
  attempts?: number;
  /** Wait before the 2nd attempt; doubled after each. Default 1 000 ms. */
  backoffMs?: number;
  /** Default: the global `fetch`. */
  fetch?: typeof fetch;
  /** Host → addresses. Default: the system resolver (`dns.lookup`, all addresses). */
  resolve?: (host: string) => Promise<string[]>;
  sleep?: (ms: number) => Promise<void>;
}

export interface WebhookDelivery {
  delivered: boolean;
  attempts: number;
  /** The last HTTP status, when an answer came. */
  status?: number;
  /** Why it was not delivered. */
  reason?: string;
}

export const WEBHOOK_DEFAULTS = { timeoutMs: 10_000, attempts: 3, backoffMs: 1_000 } as const;

export class WebhookSender {
  private readonly exact: Set<string>;
  private readonly suffixes: string[];
  private readonly any: boolean;

  constructor(private readonly options: WebhookOptions) {
    const hosts = options.allowHosts.map((h) => normalizeHost(h));
    this.exact = new Set(hosts.filter((h) => !h.startsWith("*")));
    this.suffixes = hosts.filter((h) => h.startsWith("*.")).map((h) => h.slice(1));
    this.any = hosts.includes("*");
  }

  /** At admission: the URL is absolute http(s) on an allowed host; else 400 `KEEL_ERR_HTTP_WEBHOOK_NOT_ALLOWED` (`/webhook`). */
  check(raw: string | null | undefined): URL | undefined {
    if (raw == null) return undefined;
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw refused(`\`${raw}\` is not an absolute URL (relative webhooks are not supported)`);
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") throw refused(`the scheme \`${url.protocol}\` is not http or https`);
    if (url.username || url.password) throw refused("credentials in the URL are not allowed");
    const host = normalizeHost(url.hostname);
    if (!this.hostAllowed(host)) throw refused(`the host \`${host}\` is not allowed on this server${this.exact.size + this.suffixes.length === 0 && !this.any ? " (webhooks are off: the server names no allowed host)" : ""}`);
    return url;
  }

  /** POST `payload` with retries; never throws. A host that resolves to loopback without being named is not called. */
  async deliver(raw: string, payload: unknown, signal?: AbortSignal): Promise<WebhookDelivery> {
    let url: URL;
    try {
      url = this.check(raw)!;
    } catch (error) {
      return { delivered: false, attempts: 0, reason: (error as Error).message };
    }
    const host = normalizeHost(url.hostname);
    if (!this.exact.has(host)) {
      const addresses = await this.resolve(host).catch(() => [] as string[]);
      if (addresses.some(isLoopbackAddress)) return { delivered: false, attempts: 0, reason: `\`${host}\` resolves to a loopback address and is not named in the allowed hosts` };
    }
    const attempts = this.options.attempts ?? WEBHOOK_DEFAULTS.attempts;
    const send = this.options.fetch ?? fetch;
    const sleep = this.options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref()));
    let backoff = this.options.backoffMs ?? WEBHOOK_DEFAULTS.backoffMs;
    let last: WebhookDelivery = { delivered: false, attempts: 0 };
    for (let attempt = 1; attempt <= attempts; attempt++) {
      if (signal?.aborted) return { ...last, reason: "stopped: the server is closing" };
      if (attempt > 1) {
        await sleep(backoff);
        backoff *= 2;
      }
      try {
        const response = await send(url, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(payload),
          redirect: "manual",
          signal: signal ? AbortSignal.any([signal, AbortSignal.timeout(this.options.timeoutMs ?? WEBHOOK_DEFAULTS.timeoutMs)]) : AbortSignal.timeout(this.options.timeoutMs ?? WEBHOOK_DEFAULTS.timeoutMs),
        });
        await response.body?.cancel().catch(() => undefined);
        if (response.ok) return { delivered: true, attempts: attempt, status: response.status };
        last = { delivered: false, attempts: attempt, status: response.status, reason: `answered ${response.status}` };
        if (response.status !== 429 && response.status < 500) return last;
      } catch (error) {
        last = { delivered: false, attempts: attempt, reason: (error as Error).message };
      }
    }
    return last;
  }

  private hostAllowed(host: string): boolean {
    if (this.exact.has(host)) return true;
    if (isLoopbackHost(host)) return false;
    return this.any || this.suffixes.some((suffix) => host.endsWith(suffix));
  }

  private async resolve(host: string): Promise<string[]> {
    if (isIP(host)) return [host];
    if (this.options.resolve) return this.options.resolve(host);
    return (await lookup(host, { all: true })).map((a) => a.address);
  }
}

function refused(why: string): HttpError {
  return new HttpError(400, "KEEL_ERR_HTTP_WEBHOOK_NOT_ALLOWED", `webhook refused: ${why}`, "/webhook");
}

/** Lower case, IPv6 brackets removed. */
function normalizeHost(host: string): string {
  return host.trim().toLowerCase().replace(/^\[(.*)\]$/, "$1");
}

function isLoopbackHost(host: string): boolean {
  return host === "localhost" || host.endsWith(".localhost") || isLoopbackAddress(host);
}

export function isLoopbackAddress(address: string): boolean {
  const plain = address.replace(/^::ffff:/i, "");
  if (isIP(plain) === 4) return plain.startsWith("127.") || plain === "0.0.0.0";
  return plain === "::1" || plain === "::";
}
