/**
 * The run inspector's browser tests: a headless Chromium (the system's, never a download)
 * driven by playwright-core, against a real `keel serve` started in-process (startServer).
 * Without the browser a test file prints why it skips — except under CI=true, where a
 * missing browser is a failure (.ci/run installs Debian's `chromium`).
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "@langchain/langgraph-sdk";
import { chromium, type Browser, type Page } from "playwright-core";
import { packageRoot } from "../../kernel/package-root.js";
import { KERNEL_VERSION } from "../../kernel/version.js";
import { resolveServeOptions, type ServeFlags } from "../../tools/serve/serve-options.js";
import { startServer, type StartedServer } from "../../tools/serve/start-server.js";

export const CHROMIUM = process.env.KEEL_CHROMIUM ?? "/usr/bin/chromium";

/** Why the browser tests cannot run here, or undefined when they can. Throws under CI=true. */
export function browserSkipReason(): string | undefined {
  if (existsSync(CHROMIUM)) return undefined;
  const reason = `no Chromium at ${CHROMIUM} (install Debian's \`chromium\` or set KEEL_CHROMIUM): the run inspector's browser tests are skipped`;
  if (process.env.CI === "true") throw new Error(`${reason} — not allowed under CI=true`);
  console.warn(reason);
  return reason;
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"], headless: true });
}

/** A new page that logs its errors (a failing test then says why), with `timeoutMs` for every wait. */
export async function newInspectorPage(browser: Browser, timeoutMs = 8000): Promise<Page> {
  const page = await browser.newPage();
  page.setDefaultTimeout(timeoutMs);
  page.on("pageerror", (error) => console.error("page error:", error.message));
  return page;
}

/** A new thread with one run of `lead` on `input`, joined (until it ends, or pauses for approval): a run for the page to show. */
export async function finishedRun(client: Client, input: string): Promise<{ threadId: string; runId: string }> {
  const thread = await client.threads.create();
  const run = await client.runs.create(thread.thread_id, "lead", { input });
  await client.runs.join(thread.thread_id, run.run_id);
  return { threadId: thread.thread_id, runId: run.run_id };
}

/** Screenshots are test artifacts: test-output/inspector/NAME.png (gitignored). */
export async function screenshot(page: Page, name: string): Promise<void> {
  const dir = join(packageRoot(), "test-output", "inspector");
  mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: join(dir, `${name}.png`), fullPage: true });
}

export interface InspectorServer {
  url: string;
  server: StartedServer;
  dir: string;
  close(): Promise<void>;
}

/** `keel serve` in-process on a temporary SQLite database (or `flags.db`), port 0. */
export async function startInspectorServer(flags: Partial<ServeFlags> = {}, env: Record<string, string> = {}): Promise<InspectorServer> {
  const dir = mkdtempSync(join(tmpdir(), "keel-inspector-"));
  const options = resolveServeOptions({ port: "0", db: `sqlite:${join(dir, "keel.db")}`, ...flags } as ServeFlags, env, dir);
  const server = await startServer(options, { version: KERNEL_VERSION, log: () => undefined, cwd: dir });
  return {
    url: server.url,
    server,
    dir,
    async close() {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
