/**
 * `keel serve`'s wiring in this process (SQLite in a temp dir) on a scripted scenario, with an
 * SDK client: what the stream tests drive.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@langchain/langgraph-sdk";
import { resolveServeOptions } from "../../tools/serve/serve-options.js";
import { startServer } from "../../tools/serve/start-server.js";

export interface StreamServer {
  client: Client;
  url: string;
  close(): Promise<void>;
}

export async function startStreamServer(scenario: Record<string, unknown>): Promise<StreamServer> {
  const dir = mkdtempSync(join(tmpdir(), "keel-stream-"));
  const file = join(dir, "scenario.json");
  writeFileSync(file, JSON.stringify({ contract: "scenario", version: 1, name: "stream", stack: "lead", input: "go", ...scenario }));
  const options = resolveServeOptions({ port: "0", db: `sqlite:${join(dir, "keel.db")}`, model: `scripted:${file}` }, {}, dir);
  const keel = await startServer(options, { version: "0.0.0-stream", log: () => undefined, cwd: dir, env: {} });
  return {
    client: new Client({ apiUrl: keel.url, callerOptions: { maxRetries: 0 } }),
    url: keel.url,
    async close() {
      await keel.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export type Part = { event: string; data: any };

/** Every part an SDK stream yields. */
export async function collect(stream: AsyncIterable<unknown>): Promise<Part[]> {
  const parts: Part[] = [];
  for await (const part of stream) parts.push(part as Part);
  return parts;
}

export const names = (parts: readonly Part[]): string[] => parts.map((p) => p.event);
