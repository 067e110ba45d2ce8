import { COMPATIBILITY_MODES } from "../../contracts/compat/codes.js";
import { FAIL_ON_LEVELS } from "../scenario/fail-on.js";
import type { CommandSpec, FlagSpec } from "./command-spec.js";

/**
 * Every `keel` command's flags, output and exit codes: the commands parse exactly these flags,
 * `keel <command> --help` prints them and `docs/cli.md` is generated from them.
 */

const JSON_FLAG = { description: "print one JSON document on stdout and nothing else" } as const satisfies FlagSpec;
const PLUGIN_FLAG = { value: "FILE", multiple: true, description: "add a plugin module (.js/.mjs) that the stack may name" } as const satisfies FlagSpec;
const USAGE_EXIT = [2, "bad usage or bad input: one line on stderr; with --json also `{ \"ok\": false, \"error\": { \"code\", \"message\" } }` on stdout"] as const;
const MODE_FLAG = { allowed: COMPATIBILITY_MODES, default: "backward", description: "the compatibility the verdict is for" } as const satisfies FlagSpec;

export const COMPOSE_SPEC = {
  name: "compose",
  usage: "usage: keel compose [STACK] [--plugin FILE]... [--json]",
  summary: "Compose a stack (a built-in name such as `lead` or `subagent`, or a stack@1 file; default lead) and print the composed order and every hook chain, or every problem with its fix.",
  flags: { plugin: PLUGIN_FLAG, json: JSON_FLAG },
  output: [
    "text: the order, then each hook's chain in execution order",
    '--json: { "ok": true, "order": [name...], "hooks": { "beforeAgent": [...], "beforeModel": [...], "wrapModelCall": [...], "afterModel": [...], "wrapToolCall": [...], "afterAgent": [...] } }',
    '--json, exit 1: { "ok": false, "problems": [{ "code", "message", "plugins", "hook"?, "channel"?, "cycle"?, "fix"? }] }',
  ],
  exitCodes: [[0, "the stack composes"], [1, "the stack does not compose (every problem listed)"], USAGE_EXIT],
  examples: ["keel compose lead", "keel compose ./my-stack.json --plugin ./my-plugin.mjs --json"],
} as const satisfies CommandSpec;

const OTLP_FLAG = {
  value: "URL",
  default: "OTEL_EXPORTER_OTLP_[TRACES_]ENDPOINT, else off",
  description: "export OpenTelemetry spans over OTLP/HTTP to this collector (base URL; /v1/traces is appended)",
} as const;

export const RUN_SPEC = {
  name: "run",
  usage: "usage: keel run SCENARIO [--stack STACK] [--plugin FILE]... [--fail-on partial|failed] [--workspaces DIR] [--otlp-endpoint URL] [--json] [--report-version 1|2]",
  summary: "Run a scenario@1 file with its scripted models and print the run report. SIGINT/SIGTERM cancel the run: the cancelled report is printed, then exit 130/143.",
  flags: {
    stack: { value: "STACK", default: "the scenario's stack", description: "compose this stack instead: a built-in name or a stack@1 file" },
    plugin: PLUGIN_FLAG,
    "fail-on": { value: "LEVEL", allowed: FAIL_ON_LEVELS, description: "exit 1 when the outcome is at least this bad (succeeded < partial < failed = cancelled = timed_out); the report is still printed" },
    "otlp-endpoint": OTLP_FLAG,
    "report-version": { value: "N", allowed: ["1", "2"], default: "2", description: "the run-report version --json prints (2: model requests as deltas against the agent's previous request; 1: every request whole)" },
    workspaces: { value: "DIR", default: "the OS temporary directory", description: "the directory the run's temporary workspace is made in (created if missing; the workspace is removed after the run)" },
    json: JSON_FLAG,
  },
  output: ["text: a summary of the report", "--json: the run report (run-report@2; run-report@1 with --report-version 1)", '--json, exit 1 for a stack that does not compose: { "ok": false, "problems": [...] } as in `keel compose`'],
  exitCodes: [
    [0, "the run finished, whatever its outcome (the outcome is in the report)"],
    [1, "the stack does not compose, or the outcome is at least as bad as --fail-on"],
    USAGE_EXIT,
    [130, "cancelled by SIGINT (the report is printed)"],
    [143, "cancelled by SIGTERM (the report is printed)"],
  ],
  examples: ["keel run tools/demo/demo.scenario.json", "keel run my.scenario.json --stack ./my-stack.json --fail-on partial --json"],
} as const satisfies CommandSpec;

export const REPLAY_SPEC = {
  name: "replay",
  usage: "usage: keel replay (THREAD/RUN --url URL [--api-key KEY] | --report FILE) [--stack STACK] [--plugin FILE]... [--workspace DIR] [--export FILE] [--json]",
  summary:
    "Replay a recorded run deterministically: its report (model answers, tool results) becomes a scenario@1 (a script per agent path, every tool result a fixture), run on the same stack or another one; both outcomes are printed side by side with the first turn where the replay diverged.",
  flags: {
    url: { value: "URL", description: "a `keel serve` gateway to fetch the run's report from (GET /threads/THREAD/runs/RUN/report)" },
    "api-key": { value: "KEY", default: "KEEL_API_KEY", description: "API key sent as `x-api-key` with --url" },
    report: { value: "FILE", description: "replay a saved run report (run-report@1 or @2, e.g. `keel run SCENARIO --json`) instead of fetching one" },
    stack: { value: "STACK", default: "the recorded composition", description: "replay on this stack: a built-in name or a stack@1 file" },
    plugin: PLUGIN_FLAG,
    workspace: { value: "DIR", default: "empty", description: "the workspace the recorded run started from: every file under DIR seeds the replay's workspace (a report keeps only the final files' hashes)" },
    export: { value: "FILE", description: "also write the replay's scenario@1 to FILE (`keel run FILE` runs it again, e.g. as a regression test)" },
    json: JSON_FLAG,
  },
  output: [
    "text: recorded and replayed outcome side by side (status, stop reasons, turns, tokens, text), `same: yes|no`, and the first divergence (agent, turn, what differs)",
    '--json: { "recorded": status@2, "replayed": status@2, "same": bool, "report": run-report@1 of the replay, "divergence"?: { "agent", "turn", "reason" }, "exported"?: path }',
    '--json, exit 1 for a stack that does not compose: { "ok": false, "problems": [...] } as in `keel compose`',
  ],
  exitCodes: [
    [0, "the replay ran, whatever it found (same or not)"],
    [1, "the replay's stack does not compose"],
    [2, "bad usage or bad input (not a run report: KEEL_ERR_REPLAY_REPORT; the report cannot be fetched: KEEL_ERR_REPLAY_FETCH): one line on stderr; with --json also `{ \"ok\": false, \"error\": { \"code\", \"message\" } }` on stdout"],
  ],
  examples: [
    "keel replay 6f1c…/1e0b… --url http://127.0.0.1:8787 --stack ./strict-loops.json",
    "keel replay --report report.json --json",
    "keel replay --report report.json --export regression.scenario.json",
  ],
} as const satisfies CommandSpec;

export const CONTRACTS_DIFF_SPEC = {
  name: "contracts diff",
  usage: "usage: keel contracts diff OLD NEW [--mode backward|forward|full] [--json]",
  summary: "Compare two JSON Schema files: every change with its code, pointer and effect in each direction (docs/contracts-compat.md).",
  flags: { mode: MODE_FLAG, json: JSON_FLAG },
  output: ["text: one line per change, then the backward, forward and full verdicts", '--json: { "changes": [{ "code", "path", "backward", "forward", "message" }], "backward": bool, "forward": bool, "full": bool, "compatible": bool } (`compatible`: the verdict for --mode)'],
  exitCodes: [[0, "compatible in the mode"], [1, "incompatible in the mode"], USAGE_EXIT],
  examples: ["keel contracts diff old.schema.json new.schema.json", "keel contracts diff old.schema.json new.schema.json --mode full --json"],
} as const satisfies CommandSpec;

export const CONTRACTS_CHECK_SPEC = {
  name: "contracts check",
  usage: "usage: keel contracts check --base DIR_OR_GIT_REF [--mode backward|forward|full] [--migrations MODULE] [--json]",
  summary: "Compare every schemas/*.schema.json with the same file in a base (a directory holding schemas/, or a git ref): compatible within a major version, nothing removed, every new major migrated.",
  flags: {
    base: { value: "DIR_OR_GIT_REF", description: "the base to compare with (required)" },
    mode: MODE_FLAG,
    migrations: { value: "MODULE", default: "the registered migrations", description: "a module exporting `MIGRATIONS` (or a default array) of { contract, from, to }" },
    json: JSON_FLAG,
  },
  output: ["text: the number of schema files compared, or one line per violation", '--json: { "ok": bool, "violations": [{ "file", "code", "pointer", "message" }] }'],
  exitCodes: [[0, "compatible with the base"], [1, "at least one violation"], USAGE_EXIT],
  examples: ["keel contracts check --base origin/main", "keel contracts check --base ../main --mode full --json"],
} as const satisfies CommandSpec;

export const VALIDATE_SPEC = {
  name: "validate",
  usage: "usage: keel validate CONTRACT@VERSION FILE [--json]",
  summary: "Validate a JSON payload as written (strict: every unknown property is named) against a published contract.",
  flags: { json: JSON_FLAG },
  output: ["text: `valid`, or one line per error (pointer: message)", '--json: { "valid": bool, "errors": [{ "pointer", "message" }] }'],
  exitCodes: [[0, "valid"], [1, "invalid"], USAGE_EXIT],
  examples: ["keel validate scenario@1 my.scenario.json", "keel validate run-report@1 report.json --json"],
} as const satisfies CommandSpec;

export const SCHEMAS_BUILD_SPEC = {
  name: "schemas build",
  usage: "usage: keel schemas build [--check] [--json]",
  summary: "Write schemas/ from contracts/; with --check, write nothing and fail when the committed files differ.",
  flags: { check: { description: "only compare; exit 1 listing every drifted or missing file" }, json: JSON_FLAG },
  output: ["text: the files written, or that schemas/ is up to date", '--json: { "ok": bool, "check": bool, "files": [path...] } (files written; with --check the drifted ones, each `{ "path", "problem" }`)'],
  exitCodes: [[0, "written, or up to date"], [1, "--check found drift"], USAGE_EXIT],
  examples: ["keel schemas build", "keel schemas build --check"],
} as const satisfies CommandSpec;

export const DOCS_BUILD_SPEC = {
  name: "docs build",
  usage: "usage: keel docs build [--check] [--json]",
  summary: "Write the generated documents (docs/errors.md, docs/stacks.md, docs/cli.md); with --check, write nothing and fail when a committed one differs.",
  flags: { check: { description: "only compare; exit 1 listing every drifted or missing file" }, json: JSON_FLAG },
  output: ["text: the files written, or that the generated docs are up to date", '--json: { "ok": bool, "check": bool, "files": [path...] } (files written; with --check the drifted ones, each `{ "path", "problem" }`)'],
  exitCodes: [[0, "written, or up to date"], [1, "--check found drift"], USAGE_EXIT],
  examples: ["keel docs build", "keel docs build --check"],
} as const satisfies CommandSpec;

export const PLUGIN_CHECK_SPEC = {
  name: "plugin check",
  usage: "usage: keel plugin check MODULE [--stack STACK] [--json]",
  summary: "Load a third-party plugin module, audit its manifest, compose it into a stack and report every problem with its fix.",
  flags: { stack: { value: "STACK", default: "lead", description: "the stack to compose the plugin into" }, json: JSON_FLAG },
  output: ["text: the manifest audit, the composition, then `ok` or `not ok`", '--json: { "ok": bool, "manifestProblems": [{ "code", "message", "pointer"?, "fix"?, "severity"? }], "problems": [...] } (problems as in `keel compose`)'],
  exitCodes: [[0, "the manifest is accepted (warnings aside) and the stack composes"], [1, "a manifest or composition problem"], USAGE_EXIT],
  examples: ["keel plugin check ./my-plugin.mjs", "keel plugin check ./my-plugin.mjs --stack subagent --json"],
} as const satisfies CommandSpec;

export const SERVE_SPEC = {
  name: "serve",
  usage:
    "usage: keel serve [--port 8787] [--host 127.0.0.1] [--db URL] [--redis URL] [--stack NAME]... [--model demo|scripted:FILE|openai:MODEL|anthropic:MODEL] [--bash on|off] [--max-turns 500] [--jobs 4] [--max-tokens N] [--summarizer-model openai:MODEL|anthropic:MODEL] [--plugin FILE]... [--workspaces DIR] [--otlp-endpoint URL] [--stream-memory-mb 64] [--webhook-host HOST]... [--auth FILE[:EXPORT]] [--cors ORIGIN]... [--thread-ttl 43200|off] [--retention-sweep-minutes 60]",
  summary: "Start the HTTP gateway (LangGraph Agent Server API) and serve runs until SIGTERM/SIGINT.",
  flags: {
    port: { value: "N", default: "8787", description: "port to listen on (0 picks a free one)" },
    host: { value: "HOST", default: "127.0.0.1", description: "interface to bind (a non-loopback host needs KEEL_API_KEYS, --auth, or a --plugin providing the `auth` port)" },
    db: { value: "URL", default: "sqlite:./.keel/keel.db", description: "run store: sqlite:PATH or postgres://…" },
    workspaces: { value: "DIR", default: "beside the --db file: PATH.workspaces (.keel/workspaces-DB-HASH for PostgreSQL; a temporary .keel/ directory for sqlite::memory:)", description: "where thread workspaces live" },
    redis: { value: "URL", default: "in memory", description: "stream bridge on Redis" },
    "stream-memory-mb": { value: "N", default: "64", description: "byte budget of the in-memory stream bridge in MiB (ended runs' streams are evicted first)" },
    stack: { value: "NAME", multiple: true, default: "lead", description: "a stack to serve, one assistant each" },
    model: { value: "SPEC", default: "demo", description: "demo | scripted:FILE | openai:MODEL | anthropic:MODEL" },
    "summarizer-model": { value: "SPEC", default: "the run's model", description: "the model that writes summaries (openai:MODEL | anthropic:MODEL)" },
    bash: { allowed: ["on", "off"], default: "on for demo/scripted, off for real models", description: "run real bash commands" },
    "max-turns": { value: "N", default: "500", description: "cap on any run's turn limit" },
    jobs: { value: "N", default: "4", description: "runs this worker executes at once; it claims no more from the run queue (1 to 1000)" },
    plugin: { value: "FILE", multiple: true, description: 'add a service plugin module (kind "service"), e.g. another stream-bridge' },
    "max-tokens": { value: "N", default: "the client's", description: "output-token cap of each provider response (openai:/anthropic: only)" },
    "otlp-endpoint": OTLP_FLAG,
    "webhook-host": { value: "HOST", multiple: true, default: "none (webhooks off)", description: "a host runs' webhooks may call: NAME, *.DOMAIN or *; a loopback host only when named" },
    auth: { value: "FILE[:EXPORT]", description: "a custom auth handler module: a LangGraph `Auth` instance or { authenticate, authorize } (export `default` unless named); replaces KEEL_API_KEYS" },
    cors: { value: "ORIGIN", multiple: true, default: "off", description: "allow browser clients on ORIGIN (https://app.example, or * for any): preflights and CORS headers" },
    "thread-ttl": { value: "MINUTES|off", default: "43200 (30 days)", description: "a thread idle this long is purged with everything it holds (a thread's own `ttl` wins); off: threads never expire" },
    "retention-sweep-minutes": { value: "N", default: "60", description: "how often each worker purges expired threads" },
  },
  sections: [
    {
      title: "Environment",
      lines: [
        "OPENAI_API_KEY           key for --model openai:MODEL (optional when OPENAI_BASE_URL is set)",
        "OPENAI_BASE_URL          any OpenAI-compatible server, e.g. http://127.0.0.1:11434/v1",
        "ANTHROPIC_API_KEY        key for --model anthropic:MODEL (required)",
        "ANTHROPIC_BASE_URL       another Anthropic Messages API server",
        "KEEL_PROVIDER_IDLE_MS    a provider silent this long fails the attempt as a retryable timeout (default 120000)",
        "KEEL_API_KEYS            key:user[,key2:user2]: require API keys (needed for a non-loopback --host)",
        "OTEL_EXPORTER_OTLP_ENDPOINT  tracing without the flag (also OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, OTEL_SERVICE_NAME)",
        "LANGSMITH_TRACING        true: LangChain traces model calls to LangSmith (with LANGSMITH_API_KEY)",
        "",
        "GET /metrics serves Prometheus metrics; GET /info says what tracing is on (docs/observability.md).",
      ],
    },
    {
      title: "Retries",
      lines: [
        "Provider clients are built with their own retries off (maxRetries: 0): error-fallback is the only",
        "retry layer, and every retry is a `guard` event and a journal entry with its delay (retryInMs).",
      ],
    },
  ],
  output: ["no --json (a long-running server): stdout is the one line `Keel listening on URL`; log lines go to stderr"],
  exitCodes: [[0, "stopped by SIGTERM/SIGINT after a graceful shutdown"], [1, "a served stack does not compose (problems on stderr)"], [2, "bad flags, or a setup that must not start (a non-loopback host without API keys, an unreachable database)"]],
  examples: ["keel serve", "keel serve --port 0 --db sqlite:./runs.db --stack lead --stack subagent", "OPENAI_API_KEY=sk-… keel serve --model openai:gpt-4o-mini --max-tokens 4096"],
} as const satisfies CommandSpec;

export const WATCH_SPEC = {
  name: "watch",
  usage: "usage: keel watch [THREAD/RUN] [--url URL] [--api-key KEY] [--fail-on partial|failed]",
  summary:
    "Watch runs live in the terminal over the gateway's run-status feed (GET /keel/feed): without THREAD/RUN every run of yours as it changes, until SIGINT; with one, that run's progress (turns, tokens against its token budget, the current tool, retries with their countdown, subagents with their statuses) until it ends. A redrawn status on a terminal, one line per change otherwise.",
  flags: {
    url: { value: "URL", default: "KEEL_URL, else http://127.0.0.1:8787", description: "the `keel serve` gateway" },
    "api-key": { value: "KEY", default: "KEEL_API_KEY", description: "API key sent as `x-api-key`" },
    "fail-on": { value: "LEVEL", allowed: FAIL_ON_LEVELS, default: "failed", description: "with THREAD/RUN: exit 1 when the run's outcome is at least this bad (succeeded < partial < failed = cancelled = timed_out), as `keel run --fail-on`" },
  },
  output: [
    "stdout not a terminal: one line per change, `HH:MM:SS THREAD/RUN STATUS turn N[/MAX] tokens N[/BUDGET] ACTIVITY`, and with THREAD/RUN a last line `outcome STATUS[ (stop reasons)] turns N tokens N`",
    "a terminal: the same, redrawn in place (a block per run; a retry's countdown ticks)",
  ],
  exitCodes: [
    [0, "THREAD/RUN ended with an outcome better than --fail-on; without THREAD/RUN, stopped by SIGINT/SIGTERM"],
    [1, "THREAD/RUN ended with an outcome at least as bad as --fail-on"],
    [2, "bad usage or bad input (not THREAD/RUN, or no such run: KEEL_ERR_WATCH_RUN_NOT_FOUND; the gateway cannot be reached or refused the key: KEEL_ERR_WATCH_FETCH): one line on stderr"],
  ],
  examples: ["keel watch", "keel watch 6f1c…/1e0b… --url http://127.0.0.1:8787 --fail-on partial"],
} as const satisfies CommandSpec;

/** Every command and subcommand, in the order `keel --help` lists them. */
export const COMMAND_SPECS: readonly CommandSpec[] = [
  COMPOSE_SPEC,
  RUN_SPEC,
  REPLAY_SPEC,
  WATCH_SPEC,
  SCHEMAS_BUILD_SPEC,
  DOCS_BUILD_SPEC,
  VALIDATE_SPEC,
  PLUGIN_CHECK_SPEC,
  CONTRACTS_DIFF_SPEC,
  CONTRACTS_CHECK_SPEC,
  SERVE_SPEC,
];
