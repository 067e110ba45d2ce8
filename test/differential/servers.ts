/**
 * The two servers of the differential suite, both in this process on loopback: the
 * LangGraph JS Agent Server (`@langchain/langgraph-api` 1.5.1, in-memory, serving
 * fixtures/langgraph-graph.mjs as graph `lead`) and `keel serve`'s wiring (tools/serve,
 * SQLite in a temp dir, the scripted model of fixtures/keel.scenario.json, no API keys).
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@langchain/langgraph-sdk";
import { resolveServeOptions } from "../../tools/serve/serve-options.js";
import { startServer as startKeel } from "../../tools/serve/start-server.js";

const FIXTURES = fileURLToPath(new URL("./fixtures/", import.meta.url));

export interface Servers {
  keel: { url: string; client: Client };
  langgraph: { url: string; client: Client };
  close(): Promise<void>;
}

const clientFor = (apiUrl: string) => new Client({ apiUrl, callerOptions: { maxRetries: 0 } });

export interface ServerOptions {
  /** A module path and export (`/abs/auth.mjs:auth`) loaded as the custom auth handler by both servers. */
  auth?: string;
  /** The script both sides run, by fixture name: LangGraph's graph module and Keel's scenario (default: `langgraph-graph.mjs`, `keel.scenario.json`). */
  fixtures?: { langgraph: string; keel: string };
  /** A stack file (a fixture name) `keel serve` serves besides the built-in ones (`--stack`). */
  keelStack?: string;
}

export async function startServers(options: ServerOptions = {}): Promise<Servers> {
  const fixtures = options.fixtures ?? { langgraph: "langgraph-graph.mjs", keel: "keel.scenario.json" };
  const dir = mkdtempSync(join(tmpdir(), "keel-differential-"));
  // The LangGraph server logs at `debug` unless told otherwise (read when its logger loads).
  process.env.LOG_LEVEL ??= "error";
  mkdirSync(join(dir, "langgraph"));
  const { startServer: startLangGraph } = await import("@langchain/langgraph-api/server");
  const langgraph = await startLangGraph({
    port: 0,
    nWorkers: 1,
    host: "127.0.0.1",
    cwd: join(dir, "langgraph"),
    graphs: { lead: `${join(FIXTURES, fixtures.langgraph)}:graph` },
    ...(options.auth ? { auth: { path: options.auth } } : {}),
  } as Parameters<typeof startLangGraph>[0]);
  const serveOptions = resolveServeOptions({ port: "0", db: `sqlite:${join(dir, "keel.db")}`, model: `scripted:${join(FIXTURES, fixtures.keel)}`, ...(options.keelStack ? { stack: [join(FIXTURES, options.keelStack)] } : {}), ...(options.auth ? { auth: options.auth } : {}) }, {}, dir);
  const keel = await startKeel(serveOptions, { version: "0.0.0-differential", log: () => undefined, cwd: dir, env: {} });
  const langgraphUrl = `http://${langgraph.host}`;
  return {
    keel: { url: keel.url, client: clientFor(keel.url) },
    langgraph: { url: langgraphUrl, client: clientFor(langgraphUrl) },
    async close() {
      await keel.close();
      await langgraph.cleanup();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
