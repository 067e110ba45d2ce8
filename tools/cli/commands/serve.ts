import { CompositionError } from "../../../kernel/errors.js";
import { KERNEL_VERSION } from "../../../kernel/version.js";
import { resolveServeOptions } from "../../serve/serve-options.js";
import { parseCommandArgs } from "../args.js";
import { EXIT_FAILED, EXIT_OK, failUsage, type CommandIO } from "../io.js";
import { renderProblems } from "./compose.js";

const USAGE =
  "usage: keel serve [--port 8787] [--host 127.0.0.1] [--db URL] [--redis URL] [--stack NAME]... [--model demo|scripted:FILE|openai:MODEL|anthropic:MODEL] [--bash on|off] [--max-turns 500] [--max-tokens N] [--summarizer-model openai:MODEL|anthropic:MODEL] [--plugin FILE]... [--otlp-endpoint URL]";

/** `keel serve --help`: every flag and the environment a real provider reads. */
export const SERVE_HELP = [
  USAGE,
  "",
  "Start the HTTP gateway (LangGraph Agent Server API) and serve runs until SIGTERM/SIGINT.",
  "",
  "Options:",
  "  --port N                 port to listen on (default 8787; 0 picks a free one)",
  "  --host HOST              interface to bind (default 127.0.0.1; a non-loopback host needs KEEL_API_KEYS)",
  "  --db URL                 run store: sqlite:PATH (default sqlite:./.keel/keel.db) or postgres://…",
  "  --redis URL              stream bridge on Redis (default: in memory)",
  "  --stack NAME             a stack to serve, one assistant each (repeatable; default lead)",
  "  --model SPEC             demo (default) | scripted:FILE | openai:MODEL | anthropic:MODEL",
  "  --bash on|off            run real bash commands (default on for demo/scripted, off for real models)",
  "  --max-turns N            cap on any run's turn limit (default 500)",
  "  --max-tokens N           output-token cap of each provider response (openai:/anthropic: only; default: the client's)",
  "  --summarizer-model SPEC  the model that writes summaries (default: the run's model)",
  "  --plugin FILE            add a service plugin module (kind \"service\"), e.g. another stream-bridge (repeatable)",
  "  --otlp-endpoint URL      export OpenTelemetry spans over OTLP/HTTP to this collector (base URL; /v1/traces is appended)",
  "  -h, --help               this text",
  "",
  "Environment:",
  "  OPENAI_API_KEY           key for --model openai:MODEL (optional when OPENAI_BASE_URL is set)",
  "  OPENAI_BASE_URL          any OpenAI-compatible server, e.g. http://127.0.0.1:11434/v1",
  "  ANTHROPIC_API_KEY        key for --model anthropic:MODEL (required)",
  "  ANTHROPIC_BASE_URL       another Anthropic Messages API server",
  "  KEEL_PROVIDER_IDLE_MS    a provider silent this long fails the attempt as a retryable timeout (default 120000)",
  "  KEEL_API_KEYS            key:user[,key2:user2]: require API keys (needed for a non-loopback --host)",
  "  OTEL_EXPORTER_OTLP_ENDPOINT  tracing without the flag (also OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, OTEL_SERVICE_NAME)",
  "  LANGSMITH_TRACING        true: LangChain traces model calls to LangSmith (with LANGSMITH_API_KEY)",
  "",
  "GET /metrics serves Prometheus metrics; GET /info says what tracing is on (docs/observability.md).",
  "",
  "Provider clients are built with their own retries off (maxRetries: 0): error-fallback is the only",
  "retry layer, and every retry is a `guard` event and a journal entry with its delay (retryInMs).",
].join("\n");

/**
 * `keel serve`: start the HTTP gateway and keep serving until SIGTERM or SIGINT, then
 * shut down gracefully (stop admitting, let runs finish up to 10 s, interrupt the rest,
 * close the store and bridge). Exit 2 for bad flags or a setup that must not start (a
 * non-loopback host without API keys, an unreachable database); exit 1 when a served
 * stack does not compose.
 */
export async function serveCommand(args: string[], io: CommandIO): Promise<number> {
  let server;
  try {
    const { values, positionals } = parseCommandArgs(
      args,
      {
        port: { type: "string" },
        host: { type: "string" },
        db: { type: "string" },
        redis: { type: "string" },
        stack: { type: "string", multiple: true },
        model: { type: "string" },
        "summarizer-model": { type: "string" },
        bash: { type: "string" },
        "max-turns": { type: "string" },
        plugin: { type: "string", multiple: true },
        "max-tokens": { type: "string" },
        "otlp-endpoint": { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      USAGE,
    );
    if (values.help) {
      io.out(SERVE_HELP);
      return EXIT_OK;
    }
    if (positionals.length > 0) return failUsage(io, false, new Error(`unexpected argument \`${positionals[0]}\`; ${USAGE}`));
    const options = resolveServeOptions(values, process.env, io.cwd);
    // Loaded here, so `--help` and usage errors answer without loading the whole server.
    const { startServer } = await import("../../serve/start-server.js");
    server = await startServer(options, { version: KERNEL_VERSION, log: (line) => io.err(line) });
  } catch (error) {
    // A served stack that does not compose is a failed check (exit 1), listed on stderr.
    if (error instanceof CompositionError) {
      io.err(renderProblems(error));
      return EXIT_FAILED;
    }
    return failUsage(io, false, error);
  }
  io.out(`Keel listening on ${server.url}`);
  await new Promise<void>((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      process.off("SIGTERM", stop);
      process.off("SIGINT", stop);
      io.err(`${signal}: shutting down`);
      server.close().then(resolve, (error: unknown) => {
        io.err(`shutdown failed: ${(error as Error)?.message ?? String(error)}`);
        resolve();
      });
    };
    process.on("SIGTERM", stop);
    process.on("SIGINT", stop);
  });
  return EXIT_OK;
}
