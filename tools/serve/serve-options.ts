import { isIP } from "node:net";
import { resolve } from "node:path";
import { KeelError } from "../../kernel/errors.js";
import { ApiKeys } from "../../plugins/gateway/auth.js";
import { resolveOtlpEndpoint } from "../../plugins/tracing/otlp-endpoint.js";
import { parseModelSpec, type ModelSpec } from "./model-spec.js";
import { DEFAULT_RETENTION_SWEEP_MINUTES, DEFAULT_THREAD_TTL_MINUTES } from "../../kernel/runs/thread-retention.js";

export const DEFAULT_PORT = 8787;
export const DEFAULT_HOST = "127.0.0.1";
export const DEFAULT_DB_URL = "sqlite:./.keel/keel.db";
export const DEFAULT_MAX_TURNS = 500;
/** `--jobs`: runs one worker executes at once (the RunManager's `jobs`). */
export const DEFAULT_JOBS = 4;
/** `--stream-memory-mb`: the in-memory stream bridge's byte budget, in MiB (kernel/runs/README.md). */
export const DEFAULT_STREAM_MEMORY_MB = 64;

/** Lease timing of the run service (kernel/runs/README.md); the env overrides exist for lease-expiry tests. */
export interface LeaseTiming {
  leaseTtlMs?: number;
  heartbeatMs?: number;
  /** `KEEL_LEASE_MARGIN_MS`: how long before expiry a worker stops trusting its lease (kernel/runs/README.md, Fencing). */
  leaseMarginMs?: number;
  reaperMs?: number;
  shutdownGraceMs?: number;
}

export interface ServeOptions {
  port: number;
  host: string;
  db: string;
  redis?: string;
  stacks: string[];
  model: ModelSpec;
  /**
   * `--summarizer-model`: the model that writes summaries (a real one). Without it, a real
   * `--model` summarizes with the run's model, and `demo` / `scripted:` keep the
   * deterministic summarizer.
   */
  summarizerModel?: ModelSpec;
  bash: "on" | "off";
  maxTurns: number;
  /** `--jobs N`: runs this worker executes at once; it claims no more from the run queue. */
  jobs: number;
  apiKeys: ApiKeys;
  lease: LeaseTiming;
  /** `--plugin FILE` service modules, in argument order (paths as given; resolved against the cwd). */
  pluginFiles: string[];
  /** `--workspaces DIR`, absolute; absent: derived from `db` at start (tools/serve/storage-paths.ts). */
  workspaces?: string;
  /** `--webhook-host HOST`: hosts runs' webhooks may call (`*`, `*.example.com`, a loopback host only when named). Empty: webhooks off. */
  webhookHosts: string[];
  /** `--stream-memory-mb` in bytes: the in-memory stream bridge's budget (unused with `--redis` or a `--plugin` bridge). */
  streamMemoryBytes: number;
  /** The OTLP/HTTP traces URL (`--otlp-endpoint`, else OTEL_EXPORTER_OTLP_[TRACES_]ENDPOINT); tracing is off without one. */
  otlpEndpoint?: string;
  /** `--auth FILE[:EXPORT]`: the custom auth handler module (path resolved against the cwd) and its export. */
  auth?: { file: string; exportName: string };
  /** `--cors ORIGIN…`: allowed browser origins; empty: CORS off. */
  corsOrigins: string[];
  /** `--thread-ttl`: minutes, or null (`off`): threads never expire. */
  threadTtlMinutes: number | null;
  /** `--retention-sweep-minutes`. */
  retentionSweepMinutes: number;
}

export interface ServeFlags {
  port?: string;
  host?: string;
  db?: string;
  redis?: string;
  stack?: string[];
  model?: string;
  "summarizer-model"?: string;
  bash?: string;
  "max-turns"?: string;
  jobs?: string;
  "max-tokens"?: string;
  plugin?: string[];
  workspaces?: string;
  "otlp-endpoint"?: string;
  "stream-memory-mb"?: string;
  "webhook-host"?: string[];
  auth?: string;
  cors?: string[];
  "thread-ttl"?: string;
  "retention-sweep-minutes"?: string;
}

/**
 * Flags and environment → options, every problem a `KEEL_ERR_CLI_USAGE` or
 * `KEEL_ERR_SERVE_CONFIG` (exit 2). Without API keys the server serves one local user
 * and refuses any host that is not loopback: an open port with no keys would hand the
 * `bash` tool to the network.
 */
export function resolveServeOptions(flags: ServeFlags, env: NodeJS.ProcessEnv, cwd: string): ServeOptions {
  const model = parseModelSpec(flags.model ?? "demo", cwd);
  if (flags["max-tokens"] !== undefined) {
    if (model.kind !== "openai" && model.kind !== "anthropic") throw new KeelError("KEEL_ERR_CLI_USAGE", "--max-tokens applies to --model openai:MODEL and anthropic:MODEL only");
    model.maxTokens = integerFlag("--max-tokens", flags["max-tokens"], 0, 1, 1_000_000);
  }
  const host = flags.host ?? DEFAULT_HOST;
  const apiKeys = ApiKeys.parse(env.KEEL_API_KEYS);
  const auth = flags.auth === undefined ? undefined : authModule(flags.auth, cwd);
  if (auth && apiKeys.size > 0) throw new KeelError("KEEL_ERR_SERVE_CONFIG", "--auth replaces KEEL_API_KEYS: unset KEEL_API_KEYS, or drop --auth");
  // A custom auth handler protects a non-loopback host as API keys do. A `--plugin` may
  // provide the `auth` port: known only once its module is loaded, so start-server checks then.
  if ((flags.plugin ?? []).length === 0) assertHostProtected(host, apiKeys.size > 0 || auth !== undefined);
  const bash = flags.bash ?? (model.kind === "demo" || model.kind === "scripted" ? "on" : "off");
  if (bash !== "on" && bash !== "off") throw new KeelError("KEEL_ERR_CLI_USAGE", `--bash must be \`on\` or \`off\`, got \`${bash}\``);
  const stacks = [...new Set((flags.stack ?? ["lead"]).flatMap((s) => s.split(",")).map((s) => s.trim()).filter((s) => s !== ""))];
  if (stacks.length === 0) throw new KeelError("KEEL_ERR_CLI_USAGE", "--stack needs a stack name");
  const options: ServeOptions = {
    port: integerFlag("--port", flags.port, DEFAULT_PORT, 0, 65535),
    host,
    db: flags.db ?? DEFAULT_DB_URL,
    stacks,
    model,
    bash,
    maxTurns: integerFlag("--max-turns", flags["max-turns"], DEFAULT_MAX_TURNS, 1, 100_000),
    jobs: integerFlag("--jobs", flags.jobs, DEFAULT_JOBS, 1, 1000),
    apiKeys,
    lease: leaseTiming(env),
    pluginFiles: flags.plugin ?? [],
    webhookHosts: (flags["webhook-host"] ?? []).flatMap((h) => h.split(",")).map((h) => h.trim()).filter((h) => h !== ""),
    streamMemoryBytes: integerFlag("--stream-memory-mb", flags["stream-memory-mb"], DEFAULT_STREAM_MEMORY_MB, 1, 1_048_576) * 1024 * 1024,
    corsOrigins: corsOrigins(flags.cors),
    threadTtlMinutes: flags["thread-ttl"]?.trim().toLowerCase() === "off" ? null : integerFlag("--thread-ttl", flags["thread-ttl"], DEFAULT_THREAD_TTL_MINUTES, 1, 525_600_000),
    retentionSweepMinutes: integerFlag("--retention-sweep-minutes", flags["retention-sweep-minutes"], DEFAULT_RETENTION_SWEEP_MINUTES, 1, 525_600),
  };
  if (auth) options.auth = auth;
  if (flags.redis !== undefined) options.redis = flags.redis;
  if (flags.workspaces !== undefined) {
    if (flags.workspaces.trim() === "") throw new KeelError("KEEL_ERR_CLI_USAGE", "--workspaces needs a directory");
    options.workspaces = resolve(cwd, flags.workspaces);
  }
  const otlpEndpoint = resolveOtlpEndpoint(flags["otlp-endpoint"], env);
  if (otlpEndpoint !== undefined) options.otlpEndpoint = otlpEndpoint;
  if (flags["summarizer-model"] !== undefined) options.summarizerModel = summarizerSpec(flags["summarizer-model"], cwd);
  return options;
}

/**
 * A non-loopback `--host` needs authentication — API keys, `--auth FILE`, or a `--plugin`
 * service providing the `auth` port — else `KEEL_ERR_SERVE_CONFIG` (exit 2): an open port
 * with no authentication would hand the `bash` tool to the network.
 */
export function assertHostProtected(host: string, authenticated: boolean): void {
  if (authenticated || isLoopbackHost(host)) return;
  throw new KeelError(
    "KEEL_ERR_SERVE_CONFIG",
    `refusing to bind \`${host}\` without API keys: set KEEL_API_KEYS=key:user[,key2:user2] (or give --auth FILE, or a --plugin providing the \`auth\` port) to serve a non-loopback host, or use --host 127.0.0.1`,
  );
}

/** `--auth FILE[:EXPORT]`: the module path (against the cwd) and its export (`default` when none is named). */
function authModule(raw: string, cwd: string): { file: string; exportName: string } {
  const match = /^(.*?)(?::([A-Za-z_$][\w$]*))?$/.exec(raw.trim());
  const file = match?.[1] ?? "";
  if (file === "") throw new KeelError("KEEL_ERR_CLI_USAGE", "--auth needs a module file, e.g. --auth ./auth.mjs or --auth ./auth.mjs:auth");
  return { file: resolve(cwd, file), exportName: match?.[2] ?? "default" };
}

/** `--cors ORIGIN…` (also comma-separated): each `*` or an origin (`https://app.example[:port]`, no path). */
function corsOrigins(raw: string[] | undefined): string[] {
  const origins = [...new Set((raw ?? []).flatMap((o) => o.split(",")).map((o) => o.trim()).filter((o) => o !== ""))];
  for (const origin of origins) {
    if (origin === "*") continue;
    let ok = false;
    try {
      const url = new URL(origin);
      ok = (url.protocol === "http:" || url.protocol === "https:") && url.origin === origin.replace(/\/$/, "");
    } catch {
      ok = false;
    }
    if (!ok) throw new KeelError("KEEL_ERR_CLI_USAGE", `--cors \`${origin}\` is not \`*\` or an origin like https://app.example (scheme, host, optional port; no path)`);
  }
  return origins;
}

/** `--summarizer-model SPEC`: the `--model` syntax, but only a real provider's model summarizes. */
function summarizerSpec(raw: string, cwd: string): ModelSpec {
  const spec = parseModelSpec(raw, cwd, "--summarizer-model");
  if (spec.kind !== "openai" && spec.kind !== "anthropic") {
    throw new KeelError("KEEL_ERR_CLI_USAGE", `--summarizer-model \`${raw}\` must be openai:MODEL or anthropic:MODEL (demo and scripted models summarize deterministically)`);
  }
  return spec;
}

/** `localhost`, 127.0.0.0/8 and ::1 (also as IPv4-mapped). */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  if (h === "localhost") return true;
  if (isIP(h) === 4) return h.startsWith("127.");
  if (isIP(h) === 6) return h === "::1" || /^::ffff:127\./.test(h) || h === "0:0:0:0:0:0:0:1";
  return false;
}

function integerFlag(name: string, raw: string | undefined, fallback: number, min: number, max: number): number {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || !Number.isInteger(value) || value < min || value > max) {
    throw new KeelError("KEEL_ERR_CLI_USAGE", `${name} must be an integer from ${min} to ${max}, got \`${raw}\``);
  }
  return value;
}

/** `KEEL_LEASE_TTL_MS`, `KEEL_HEARTBEAT_MS`, `KEEL_REAPER_MS`, `KEEL_LEASE_MARGIN_MS`, `KEEL_SHUTDOWN_GRACE_MS`: test-only knobs (small values make lease expiry and shutdown testable). */
function leaseTiming(env: NodeJS.ProcessEnv): LeaseTiming {
  const timing: LeaseTiming = {};
  const read = (name: string): number | undefined => {
    const raw = env[name];
    if (raw === undefined || raw === "") return undefined;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < 10) throw new KeelError("KEEL_ERR_SERVE_CONFIG", `${name} must be an integer number of milliseconds >= 10, got \`${raw}\``);
    return value;
  };
  const ttl = read("KEEL_LEASE_TTL_MS");
  const heartbeat = read("KEEL_HEARTBEAT_MS");
  const reaper = read("KEEL_REAPER_MS");
  const margin = read("KEEL_LEASE_MARGIN_MS");
  if (margin !== undefined) timing.leaseMarginMs = margin;
  if (ttl !== undefined) timing.leaseTtlMs = ttl;
  if (heartbeat !== undefined) timing.heartbeatMs = heartbeat;
  if (reaper !== undefined) timing.reaperMs = reaper;
  const grace = read("KEEL_SHUTDOWN_GRACE_MS");
  if (grace !== undefined) timing.shutdownGraceMs = grace;
  return timing;
}
