import { KeelError } from "../../../kernel/errors.js";
import { isRunSummary, type RunSummary } from "../../../kernel/runs/run-feed.js";
import { failsOn, parseFailOn } from "../../scenario/fail-on.js";
import { parseSpecArgs } from "../args.js";
import { helpRequested, renderHelp } from "../command-spec.js";
import { EXIT_FAILED, EXIT_OK, failUsage, type CommandIO } from "../io.js";
import { WATCH_SPEC } from "../specs.js";
import { readSse } from "../../sse/sse-reader.js";
import { isEnded, logLine, outcomeLine, progressText, StatusBlock, type RunLimits } from "../watch/watch-render.js";

const USAGE = WATCH_SPEC.usage;
const DEFAULT_URL = "http://127.0.0.1:8787";
/** Pause before opening the feed again after the connection dropped. */
const RECONNECT_MS = 1_000;
/** How often a terminal status is redrawn without news (a retry's countdown). */
const TICK_MS = 1_000;
/** Runs a terminal shows without THREAD/RUN. */
const SHOWN_RUNS = 20;

/** What tests (and embedders) may replace: the stop signal, whether stdout is a terminal, how it is written. */
export interface WatchOptions {
  /** Stops the watch (exit 0 without THREAD/RUN). Default: SIGINT or SIGTERM. */
  signal?: AbortSignal;
  /** Redraw in place. Default: whether stdout is a TTY. */
  tty?: boolean;
  /** Raw stdout writes for the redrawn status. Default: process.stdout. */
  write?: (text: string) => void;
  now?: () => number;
}

interface Gateway {
  base: URL;
  headers: Record<string, string>;
}

/**
 * `keel watch [THREAD/RUN]`: follow the gateway's run-status feed. With THREAD/RUN: that
 * run until it ends, exit 0, or 1 when its outcome is at least as bad as --fail-on (default
 * `failed`); without: every run of the caller's until SIGINT/SIGTERM (exit 0). Bad input: 2.
 */
export async function watchCommand(args: string[], io: CommandIO, options: WatchOptions = {}): Promise<number> {
  if (helpRequested(args)) return (io.out(renderHelp(WATCH_SPEC)), EXIT_OK);
  const stop = options.signal ? { signal: options.signal, release: () => undefined } : stopOnSignals();
  try {
    const { values, positionals } = parseSpecArgs(args, WATCH_SPEC);
    const failOn = parseFailOn(values["fail-on"]) ?? "failed";
    if (positionals.length > 1) throw new KeelError("KEEL_ERR_CLI_USAGE", `expected at most one THREAD/RUN, got ${positionals.length}; ${USAGE}`);
    const gateway = gatewayOf(values.url ?? process.env.KEEL_URL ?? DEFAULT_URL, values["api-key"] ?? process.env.KEEL_API_KEY);
    const tty = options.tty ?? process.stdout.isTTY === true;
    const view: View = {
      io,
      tty,
      now: options.now ?? Date.now,
      block: new StatusBlock(options.write ?? ((text) => void process.stdout.write(text))),
      columns: () => process.stdout.columns || 120,
    };
    const ref = positionals[0];
    if (ref === undefined) {
      await watchAll(gateway, view, stop.signal);
      return EXIT_OK;
    }
    const match = /^([^/\s]+)\/([^/\s]+)$/.exec(ref);
    if (!match) throw new KeelError("KEEL_ERR_CLI_USAGE", `\`${ref}\` is not THREAD/RUN (a thread id, a slash, a run id); ${USAGE}`);
    const final = await watchRun(gateway, view, match[1]!, match[2]!, stop.signal);
    if (!final) return EXIT_OK;
    return failsOn(final.outcome?.status ?? "failed", failOn) ? EXIT_FAILED : EXIT_OK;
  } catch (error) {
    return failUsage(io, false, error);
  } finally {
    stop.release();
  }
}

interface View {
  io: CommandIO;
  tty: boolean;
  now(): number;
  block: StatusBlock;
  columns(): number;
}

function stopOnSignals(): { signal: AbortSignal; release(): void } {
  const controller = new AbortController();
  const onSignal = () => controller.abort();
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  return {
    signal: controller.signal,
    release: () => {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    },
  };
}

function gatewayOf(url: string, apiKey: string | undefined): Gateway {
  let base: URL;
  try {
    base = new URL(url.endsWith("/") ? url : `${url}/`);
  } catch {
    throw new KeelError("KEEL_ERR_CLI_USAGE", `--url \`${url}\` is not a URL; ${USAGE}`);
  }
  if (base.protocol !== "http:" && base.protocol !== "https:") throw new KeelError("KEEL_ERR_CLI_USAGE", `--url \`${url}\` is not an http(s) URL; ${USAGE}`);
  return { base, headers: apiKey ? { "x-api-key": apiKey } : {} };
}

async function request(gateway: Gateway, path: string, signal?: AbortSignal): Promise<Response> {
  const url = new URL(path, gateway.base);
  try {
    return await fetch(url, { headers: gateway.headers, ...(signal ? { signal } : {}) });
  } catch (error) {
    if (signal?.aborted) throw error;
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
    throw new KeelError("KEEL_ERR_WATCH_FETCH", `cannot reach ${url.origin}: ${cause}; check --url`);
  }
}

async function refusal(response: Response, what: string): Promise<KeelError> {
  const text = await response.text().catch(() => "");
  let detail = text.slice(0, 200);
  try {
    const body = JSON.parse(text) as { error?: string; message?: string };
    detail = [body.error, body.message].filter(Boolean).join(": ") || detail;
  } catch {
    // not JSON
  }
  const hint = response.status === 401 || response.status === 403 ? "; pass --api-key (or KEEL_API_KEY)" : "";
  return new KeelError("KEEL_ERR_WATCH_FETCH", `${what} answered ${response.status}${detail ? ` (${detail})` : ""}${hint}`);
}

/** The run as the gateway has it, and what it is allowed: its token budget and turn limit. */
async function runAndLimits(gateway: Gateway, threadId: string, runId: string): Promise<{ run: Record<string, unknown>; limits: RunLimits }> {
  const response = await request(gateway, `threads/${encodeURIComponent(threadId)}/runs/${encodeURIComponent(runId)}`);
  if (response.status === 404) throw new KeelError("KEEL_ERR_WATCH_RUN_NOT_FOUND", `no run \`${runId}\` of thread \`${threadId}\` for this API key`);
  if (!response.ok) throw await refusal(response, `GET /threads/${threadId}/runs/${runId}`);
  const run = (await response.json()) as Record<string, unknown>;
  const kwargs = record(run.kwargs);
  const limits: RunLimits = {};
  const budget = record(record(record(record(kwargs.config).configurable).keel_plugin_options)["token-budget"]);
  const given = { turns: typeof kwargs.max_turns === "number" ? kwargs.max_turns : undefined, tokens: typeof budget.limit === "number" ? budget.limit : undefined };
  // What the run did not ask for itself is its assistant's: the resolved options of its schemas.
  const defaults = given.turns === undefined || given.tokens === undefined ? await assistantDefaults(gateway, String(run.assistant_id ?? "")) : {};
  const turns = given.turns ?? defaults.turns;
  const tokens = budget.enabled === false ? undefined : (given.tokens ?? defaults.tokens);
  if (turns !== undefined) limits.turns = turns;
  if (tokens !== undefined) limits.tokens = tokens;
  return { run, limits };
}

/** The assistant's resolved options (its schemas' defaults): the token-budget limit when its stack has the plugin, the turn limit. */
async function assistantDefaults(gateway: Gateway, assistantId: string): Promise<RunLimits> {
  if (assistantId === "") return {};
  const response = await request(gateway, `assistants/${encodeURIComponent(assistantId)}/schemas`).catch(() => null);
  if (!response?.ok) return {};
  const options = record(record(record(await response.json().catch(() => ({}))).context_schema).properties);
  const limits: RunLimits = {};
  const turns = record(options.maxTurns).default;
  if (typeof turns === "number") limits.turns = turns;
  const plugin = record(record(record(options.plugins).properties)["token-budget"]);
  const props = record(plugin.properties);
  const tokens = record(props.limit).default;
  if (record(props.enabled).default !== false && typeof tokens === "number") limits.tokens = tokens;
  return limits;
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/**
 * Open the feed and hand each summary to `onSummary` (the snapshot's first, oldest last);
 * returns when `onSummary` says done, or the signal aborts. A dropped connection is opened again.
 */
async function followFeed(gateway: Gateway, query: string, signal: AbortSignal, onSnapshot: (runs: RunSummary[]) => boolean, onSummary: (summary: RunSummary) => boolean): Promise<void> {
  while (!signal.aborted) {
    const controller = new AbortController();
    const abort = () => controller.abort();
    signal.addEventListener("abort", abort, { once: true });
    try {
      const response = await request(gateway, `keel/feed${query}`, controller.signal);
      if (!response.ok || !response.body) throw await refusal(response, "GET /keel/feed");
      for await (const message of readSse(response.body)) {
        if (message.event === "snapshot") {
          const runs = record(message.data).runs;
          if (onSnapshot(Array.isArray(runs) ? runs.filter(isRunSummary) : [])) return;
        } else if (message.event === "run" && isRunSummary(message.data) && onSummary(message.data)) return;
      }
    } catch (error) {
      if (signal.aborted) return;
      if (error instanceof KeelError) throw error;
      // The connection dropped: open the feed again (a new snapshot says where things are).
    } finally {
      signal.removeEventListener("abort", abort);
      controller.abort();
    }
    await new Promise((resolve) => setTimeout(resolve, RECONNECT_MS).unref());
  }
}

/** One run until it ends: its final summary (null when stopped first). */
async function watchRun(gateway: Gateway, view: View, threadId: string, runId: string, signal: AbortSignal): Promise<RunSummary | null> {
  const { limits } = await runAndLimits(gateway, threadId, runId);
  let last: RunSummary | null = null;
  let lastLine = "";
  const show = (summary: RunSummary): boolean => {
    last = summary;
    if (view.tty) view.block.draw(fit([progressText(summary, limits, view.now()), ...(isEnded(summary) ? [outcomeLine(summary)] : [])], view.columns()));
    else {
      const line = progressText(summary, limits, view.now());
      if (line !== lastLine) view.io.out(logLine(summary, limits, view.now()));
      lastLine = line;
      if (isEnded(summary)) view.io.out(outcomeLine(summary));
    }
    return isEnded(summary);
  };
  const tick = view.tty ? setInterval(() => last && !isEnded(last) && show(last), TICK_MS) : undefined;
  tick?.unref();
  try {
    await followFeed(
      gateway,
      `?thread_id=${encodeURIComponent(threadId)}&limit=200`,
      signal,
      (runs) => {
        const found = runs.find((r) => r.run_id === runId);
        return found ? show(found) : false;
      },
      (summary) => summary.run_id === runId && show(summary),
    );
  } finally {
    if (tick) clearInterval(tick);
  }
  const final = last as RunSummary | null;
  return final && isEnded(final) ? final : null;
}

/** Every run of the caller's, until the signal. */
async function watchAll(gateway: Gateway, view: View, signal: AbortSignal): Promise<void> {
  const runs = new Map<string, RunSummary>();
  const lines = new Map<string, string>();
  const redraw = () => {
    const all = [...runs.values()];
    const shown = [...all.filter((r) => !isEnded(r)), ...all.filter(isEnded).sort((a, b) => (a.updated_at < b.updated_at ? 1 : -1))].slice(0, SHOWN_RUNS);
    const active = all.filter((r) => !isEnded(r)).length;
    view.block.draw(fit([`${active} active, ${all.length} shown runs — Ctrl-C to stop`, ...shown.map((r) => progressText(r, {}, view.now()))], view.columns()));
  };
  const show = (summary: RunSummary) => {
    runs.set(summary.run_id, summary);
    if (view.tty) return;
    const line = progressText(summary, {}, view.now());
    if (lines.get(summary.run_id) === line) return;
    lines.set(summary.run_id, line);
    view.io.out(logLine(summary, {}, view.now()));
  };
  const tick = view.tty ? setInterval(redraw, TICK_MS) : undefined;
  tick?.unref();
  try {
    await followFeed(
      gateway,
      "",
      signal,
      (snapshot) => {
        for (const summary of [...snapshot].reverse()) show(summary);
        if (view.tty) redraw();
        return false;
      },
      (summary) => {
        show(summary);
        if (view.tty) redraw();
        return false;
      },
    );
  } finally {
    if (tick) clearInterval(tick);
  }
}

/** Lines cut to the terminal's width, so a redraw moves up exactly as many lines as it drew. */
function fit(lines: readonly string[], columns: number): string[] {
  return lines.map((line) => (line.length < columns ? line : `${line.slice(0, Math.max(1, columns - 2))}…`));
}
