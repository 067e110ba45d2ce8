#!/usr/bin/env bash
# Keel as a user gets it: pack the package, install the tarball into empty projects with
# only its runtime dependencies (no devDependencies, no optional peers), once with the
# peers @langchain/core / @langchain/langgraph at the pinned development versions and
# once at the floor of their declared ranges. In each: check that no optional peer came
# along, run the demo scenario with `npx keel run`, start `keel serve` on SQLite and ask
# it /ok, type-check, compile and run a TypeScript consumer (.ci/packed-consumer: it also
# installs `langchain`, as a user of LangChain middleware would, for toolCallLimitMiddleware), and run
# the third-party plugin fixture's own suite (test/fixtures/third-party-plugin) against it.
# Nothing here resolves from the checkout's node_modules: the projects live under a
# fresh temporary directory. Needs dist/ built (npm run build) and the npm registry.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/keel-packed-XXXXXX")"
unset NODE_PATH NODE_OPTIONS
export npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false

step() { # step NAME COMMAND...: runs it and prints how long it took
  local name="$1" start=$SECONDS
  shift
  echo "-- $name"
  "$@"
  echo "   $name: $((SECONDS - start)) s"
}

[ -f "$ROOT/dist/tools/cli/bin.js" ] || { echo "dist/ is missing: run \`npm run build\` first" >&2; exit 1; }

# A value of package.json, e.g. `field devDependencies @langchain/core`.
field() { node -e 'const p = require(process.argv[1]); const v = p[process.argv[2]]?.[process.argv[3]]; if (!v) process.exit(1); console.log(v)' "$ROOT/package.json" "$1" "$2"; }
# The lowest version a plain range (`^1.3.4`, `~1.2.0`, `>=1.0.0`, `1.2.3`) admits.
floor_of() { node -e 'const m = /^(\^|~|>=)?(\d+\.\d+\.\d+)$/.exec(process.argv[1].trim()); if (!m) { console.error(`cannot take the floor of ${process.argv[1]}`); process.exit(1); } console.log(m[2])' "$1"; }

CORE_PINNED="$(field devDependencies @langchain/core)"
LANGGRAPH_PINNED="$(field devDependencies @langchain/langgraph)"
CORE_FLOOR="$(floor_of "$(field peerDependencies @langchain/core)")"
LANGGRAPH_FLOOR="$(floor_of "$(field peerDependencies @langchain/langgraph)")"
TYPESCRIPT="$(field devDependencies typescript)"
TYPES_NODE="$(field devDependencies @types/node)"
VITEST="$(field devDependencies vitest)"
LANGCHAIN="$(field devDependencies langchain)"
OTEL_API="$(field devDependencies @opentelemetry/api)"
OTEL_SDK="$(field devDependencies @opentelemetry/sdk-trace-base)"
OTEL_EXPORTER="$(field devDependencies @opentelemetry/exporter-trace-otlp-http)"
OPTIONAL_PEERS=(@langchain/openai @langchain/anthropic @langchain/langgraph-checkpoint-postgres @mikro-orm/postgresql pg ioredis)

pack() {
  (cd "$ROOT" && npm pack --ignore-scripts --silent --pack-destination "$WORK" >/dev/null)
  TARBALL="$(ls "$WORK"/keel-*.tgz)"
  if tar -tzf "$TARBALL" | grep -E '^package/(test/|dist/test/)'; then echo "the tarball ships test files" >&2; exit 1; fi
  echo "   $(basename "$TARBALL"): $(du -k "$TARBALL" | cut -f1) kB"
}

install_project() { # install_project DIR CORE LANGGRAPH [FROM]: FROM, an installed project, saves the second download
  if [ -n "${4:-}" ]; then
    mkdir -p "$1"
    cp -a "$4/package.json" "$4/package-lock.json" "$4/node_modules" "$1/"
    (cd "$1" && npm install --loglevel=error "@langchain/core@$2" "@langchain/langgraph@$3" >/dev/null)
  else
    mkdir -p "$1"
    printf '{ "name": "keel-consumer", "private": true, "type": "module" }\n' >"$1/package.json"
    (cd "$1" && npm install --loglevel=error "$TARBALL" "@langchain/core@$2" "@langchain/langgraph@$3" "typescript@$TYPESCRIPT" "@types/node@$TYPES_NODE" "langchain@$LANGCHAIN" >/dev/null)
  fi
  (cd "$1" && node -e '
    const [core, langgraph] = process.argv.slice(1);
    const version = (name) => JSON.parse(require("fs").readFileSync(`node_modules/${name}/package.json`, "utf8")).version;
    for (const [name, want] of [["@langchain/core", core], ["@langchain/langgraph", langgraph]]) {
      if (version(name) !== want) { console.error(`${name} is ${version(name)}, expected ${want}`); process.exit(1); }
    }' "$2" "$3")
  local peer
  for peer in "${OPTIONAL_PEERS[@]}"; do
    if [ -e "$1/node_modules/$peer" ]; then echo "optional peer $peer was installed" >&2; exit 1; fi
  done
  echo "   $(ls -d "$1"/node_modules/* "$1"/node_modules/@*/* 2>/dev/null | grep -v '/@[^/]*$' | wc -l) packages, $(du -sm "$1/node_modules" | cut -f1) MB"
  echo "   largest: $(cd "$1/node_modules" && du -sm * @*/* 2>/dev/null | grep -v '^[0-9]*	@[^/]*$' | sort -rn | head -n 5 | awk '{printf "%s %s MB, ", $2, $1}')"
}

run_scenario() { # run_scenario DIR
  (cd "$1" && npx --no-install keel run node_modules/keel/tools/demo/demo.scenario.json --json >report.json)
  (cd "$1" && node -e '
    const report = JSON.parse(require("fs").readFileSync("report.json", "utf8"));
    if (report.contract !== "run-report" || report.outcome.status !== "succeeded") { console.error(JSON.stringify(report.outcome)); process.exit(1); }
    console.log(`   demo: ${report.outcome.status}, ${report.delegations.length} delegation(s)`)')
}

serve_sqlite() { # serve_sqlite DIR: `keel serve` on its default SQLite store answers /ok
  local log="$1/serve.log" pid url=""
  # The bin itself (its shebang runs node in place), so $! is the server and `kill` stops it.
  (cd "$1" && exec ./node_modules/.bin/keel serve --port 0) >"$log" 2>&1 &
  pid=$!
  for _ in $(seq 1 100); do
    url="$(sed -n 's/^Keel listening on \(http:[^ ]*\)$/\1/p' "$log")"
    [ -n "$url" ] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.2
  done
  if [ -z "$url" ]; then cat "$log" >&2; kill "$pid" 2>/dev/null || true; exit 1; fi
  local ok
  ok="$(node -e 'fetch(process.argv[1] + "/ok").then(async (r) => console.log(r.status, await r.text()))' "$url")"
  # The run inspector's page and its committed bundle come with the package (no build at install).
  local page
  page="$(node -e 'Promise.all(["/", "/inspector/app.js", "/inspector/app.css"].map((p) => fetch(process.argv[1] + p).then(async (r) => `${p} ${r.status} ${(await r.text()).length}`))).then((l) => console.log(l.join(", ")))' "$url")"
  kill "$pid"
  case "$page" in "/ 200 "*", /inspector/app.js 200 "*", /inspector/app.css 200 "*) echo "   serve: inspector $page" ;; *) echo "the inspector is not served: $page" >&2; exit 1 ;; esac
  wait "$pid" 2>/dev/null || true
  case "$ok" in 200*) echo "   serve: $url/ok -> $ok" ;; *) echo "serve /ok answered: $ok" >&2; exit 1 ;; esac
  [ -f "$1/.keel/keel.db" ] || { echo "no SQLite store at .keel/keel.db" >&2; exit 1; }
}

typecheck_consumer() { # typecheck_consumer DIR: after the optional-peer check, the consumer adds the OpenTelemetry peers (tracing on)
  (cd "$1" && npm install --no-save --loglevel=error "@opentelemetry/api@$OTEL_API" "@opentelemetry/sdk-trace-base@$OTEL_SDK" "@opentelemetry/resources@$OTEL_SDK" "@opentelemetry/exporter-trace-otlp-http@$OTEL_EXPORTER" >/dev/null)
  cp "$ROOT/.ci/packed-consumer/consumer.ts" "$ROOT/.ci/packed-consumer/tsconfig.json" "$1/"
  (cd "$1" && npx --no-install tsc -p tsconfig.json && node out/consumer.js)
}

third_party_plugin() { # third_party_plugin DIR: the fixture plugin, beside the packed keel, passes its own suite
  local plugin="$1/third-party-plugin"
  rm -rf "$plugin"
  cp -r "$ROOT/test/fixtures/third-party-plugin" "$plugin"
  rm -rf "$plugin/node_modules" # the checkout links its own keel there; here keel comes from the project
  # Its test runner, as the plugin's author would have it; keel and @langchain/core resolve from DIR/node_modules.
  (cd "$1" && npm install --no-save --loglevel=error "vitest@$VITEST" >/dev/null)
  (cd "$plugin" && "$1/node_modules/.bin/vitest" run --root "$plugin")
}

variant() { # variant NAME CORE LANGGRAPH [FROM]
  local dir="$WORK/$1"
  echo "== $1: @langchain/core@$2, @langchain/langgraph@$3"
  step "install the tarball" install_project "$dir" "$2" "$3" "${4:-}"
  step "keel run (demo scenario)" run_scenario "$dir"
  step "keel serve (SQLite)" serve_sqlite "$dir"
  step "TypeScript consumer" typecheck_consumer "$dir"
  step "third-party plugin" third_party_plugin "$dir"
}

step "npm pack" pack
variant pinned "$CORE_PINNED" "$LANGGRAPH_PINNED"
# The floor project starts as a copy of the pinned one and moves the peers down (npm
# re-resolves the tree; the versions are checked above), instead of downloading it all again.
variant floor "$CORE_FLOOR" "$LANGGRAPH_FLOOR" "$WORK/pinned"
rm -rf "$WORK"
echo "packed install: ok"
