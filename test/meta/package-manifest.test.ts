import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import semver from "semver";
import { describe, expect, it } from "vitest";
import { packageRoot } from "../../kernel/package-root.js";

interface PackageJson {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
  scripts: Record<string, string>;
  overrides: Record<string, string | Record<string, string>>;
  allowScripts: Record<string, boolean>;
  engines: { node: string };
}

const root = packageRoot();
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as PackageJson;
const installed = (name: string) => JSON.parse(readFileSync(join(root, "node_modules", name, "package.json"), "utf8")) as PackageJson & { version: string };

const REQUIRED_PEERS = ["@langchain/core", "@langchain/langgraph"];
const OPTIONAL_PEERS = ["@langchain/openai", "@langchain/anthropic", "@langchain/langgraph-checkpoint-postgres", "@mikro-orm/postgresql", "ioredis"];
/** OTLP export (plugins/tracing): imported only when tracing is on. */
const OTEL_PEERS = ["@opentelemetry/api", "@opentelemetry/sdk-trace-base", "@opentelemetry/resources", "@opentelemetry/exporter-trace-otlp-http"];

describe("package.json as a library user sees it", () => {
  it("LangChain core and LangGraph are peer dependencies with ranges, pinned for development inside them", () => {
    for (const name of REQUIRED_PEERS) {
      expect(pkg.dependencies[name], name).toBeUndefined();
      expect(semver.validRange(pkg.peerDependencies[name]), name).toBeTruthy();
      expect(semver.valid(pkg.devDependencies[name]), `${name} pinned for development`).toBeTruthy();
      expect(semver.satisfies(pkg.devDependencies[name]!, pkg.peerDependencies[name]!), name).toBe(true);
      expect(pkg.peerDependenciesMeta[name]?.optional, name).not.toBe(true);
    }
  });

  it("the @langchain/core floor is no lower than what the pinned @langchain/langgraph requires", () => {
    const langgraphNeeds = installed("@langchain/langgraph").peerDependencies["@langchain/core"]!;
    const floor = semver.minVersion(pkg.peerDependencies["@langchain/core"]!)!.version;
    expect(semver.satisfies(floor, langgraphNeeds)).toBe(true);
    expect(semver.minVersion(pkg.peerDependencies["@langchain/langgraph"]!)!.version).toBe("1.7.3");
  });

  it("providers, the PostgreSQL drivers and ioredis are optional peers, not dependencies", () => {
    for (const name of OPTIONAL_PEERS) {
      expect(pkg.dependencies[name], name).toBeUndefined();
      expect(pkg.peerDependenciesMeta[name]?.optional, name).toBe(true);
      expect(semver.satisfies(pkg.devDependencies[name]!, pkg.peerDependencies[name]!), name).toBe(true);
    }
    // SQLite is the default store: its drivers stay required.
    for (const name of ["@mikro-orm/better-sqlite", "@langchain/langgraph-checkpoint-sqlite", "better-sqlite3"]) expect(pkg.dependencies[name], name).toBeDefined();
  });

  it("has one SQLite native driver: better-sqlite3 12, forced under MikroORM's better-sqlite driver", () => {
    // The run store shares its better-sqlite3 connection; the node `sqlite3` driver (and
    // MikroORM's driver for it) would be a second native module doing the same job.
    expect(pkg.dependencies["@mikro-orm/sqlite"]).toBeUndefined();
    expect(pkg.dependencies["sqlite3"]).toBeUndefined();
    expect(semver.satisfies(pkg.dependencies["better-sqlite3"]!, "12.x")).toBe(true);
    expect(pkg.overrides["@mikro-orm/better-sqlite"]).toEqual({ "better-sqlite3": "$better-sqlite3" });
    expect(pkg.allowScripts["sqlite3"]).toBeUndefined();
  });

  it("the OpenTelemetry packages are optional peers; sdk-trace-node is only a test's (a host's own provider), not a peer", () => {
    for (const name of OTEL_PEERS) {
      expect(pkg.dependencies[name], name).toBeUndefined();
      expect(pkg.peerDependenciesMeta[name]?.optional, name).toBe(true);
      expect(semver.satisfies(pkg.devDependencies[name]!, pkg.peerDependencies[name]!), name).toBe(true);
    }
    // The 0.2xx exporter line moves in minor steps; 0.219.x is the last one that runs on Node 20.
    expect(semver.satisfies("0.220.0", pkg.peerDependencies["@opentelemetry/exporter-trace-otlp-http"]!)).toBe(false);
    expect(pkg.peerDependencies["@opentelemetry/sdk-trace-node"]).toBeUndefined();
    expect(pkg.dependencies["@opentelemetry/sdk-trace-node"]).toBeUndefined();
    expect(pkg.devDependencies["@opentelemetry/sdk-trace-node"]).toBeDefined();
  });

  it("has no install-time script, and every runtime dependency runs on the declared Node", () => {
    for (const script of ["preinstall", "install", "postinstall"]) expect(pkg.scripts[script], script).toBeUndefined();
    const floor = semver.minVersion(pkg.engines.node)!.version;
    for (const name of [...Object.keys(pkg.dependencies), ...Object.keys(pkg.peerDependencies)]) {
      const engines = (installed(name) as { engines?: { node?: string } }).engines?.node;
      if (engines !== undefined) expect(semver.satisfies(floor, engines), `${name} engines ${engines}`).toBe(true);
    }
  });

  it("every package the lockfile installs runs on this Node, and every non-development one on the declared floor", () => {
    // Transitive packages count: an `npm ci` on Node 20 must print no EBADENGINE warning.
    const lock = JSON.parse(readFileSync(join(root, "package-lock.json"), "utf8")) as {
      packages: Record<string, { version?: string; dev?: boolean; engines?: { node?: string } | string[] }>;
    };
    const floor = semver.minVersion(pkg.engines.node)!.version;
    const refused: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
      if (path === "" || range === undefined) continue;
      if (!semver.satisfies(process.version, range)) refused.push(`${path}@${entry.version} needs node ${range}`);
      if (!entry.dev && !semver.satisfies(floor, range)) refused.push(`${path}@${entry.version} needs node ${range} (floor ${floor})`);
    }
    expect(refused).toEqual([]);
  });

  it("npm pack ships dist, schemas, docs, the stacks, the demo and every plugin README, and nothing from test/", () => {
    const out = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
    const files = new Set((JSON.parse(out) as [{ files: { path: string }[] }])[0].files.map((file) => file.path));
    const plugins = readdirSync(join(root, "plugins")).filter((name) => existsSync(join(root, "plugins", name, "README.md")));
    expect(plugins.length).toBeGreaterThan(10);
    for (const name of plugins) expect(files.has(`plugins/${name}/README.md`), name).toBe(true);
    for (const path of ["dist/tools/index.js", "dist/tools/index.d.ts", "dist/tools/cli/bin.js", "dist/plugins/workspace/command-watchdog.js", "schemas/manifest.v1.schema.json", "docs/errors.md", "plugins/stacks/lead.json", "tools/demo/demo.scenario.json", "README.md"]) {
      expect(files.has(path), path).toBe(true);
    }
    expect([...files].filter((path) => path.startsWith("test/") || path.startsWith("dist/test/") || path.endsWith(".ts") && !path.endsWith(".d.ts"))).toEqual([]);
  });
});
