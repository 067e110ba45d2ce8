import { Client } from "@langchain/langgraph-sdk";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PG_URL, postgresUnavailable } from "../e2e/services.js";
import { scratchDatabase } from "../plugins/store-sql/scratch-database.js";
import { browserSkipReason, launchBrowser, startInspectorServer, type InspectorServer } from "./browser.js";

/**
 * The inspector on `keel serve --db postgres://…` (a scratch database): the feed's snapshot
 * comes from the SQL run store, the checkpoints from the PostgreSQL checkpointer. Skipped with
 * a printed reason when PostgreSQL or the browser is absent locally; a failure under CI=true.
 */
const skip = browserSkipReason();
const pgSkip = await postgresUnavailable(PG_URL);
if (pgSkip !== null) console.warn(`skipping the run inspector on PostgreSQL: ${pgSkip}`);

describe.skipIf(skip !== undefined || pgSkip !== null)("the run inspector on PostgreSQL", () => {
  let database: { url: string; drop(): Promise<void> };
  let server: InspectorServer;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    database = await scratchDatabase(PG_URL, "keel_inspector");
    [server, browser] = await Promise.all([startInspectorServer({ db: database.url }), launchBrowser()]);
    page = await browser.newPage();
    page.setDefaultTimeout(15_000);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await database?.drop();
  });

  it("lists a finished run from the snapshot and shows its journal entries and checkpoints", async () => {
    const client = new Client({ apiUrl: server.url, callerOptions: { maxRetries: 0 } });
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "lead", { input: "Show me what you can do." });
    await client.runs.join(thread.thread_id, run.run_id);
    await page.goto(`${server.url}/`);
    await page.locator(`tr[data-run-id="${run.run_id}"][data-status="success"]`).waitFor();

    await page.locator(`tr[data-run-id="${run.run_id}"] a`).click();
    await page.locator('[data-testid="timeline"] tr[data-commit="true"]').waitFor();
    const journal = (await (await fetch(`${server.url}/threads/${thread.thread_id}/runs/${run.run_id}/journal`)).json()) as unknown[];
    const history = await client.threads.getHistory(thread.thread_id, { limit: 100 });
    expect(await page.locator('[data-testid="timeline"] tr[data-source="journal"]').count()).toBe(journal.length);
    expect(await page.locator('[data-testid="timeline"] tr[data-source="checkpoint"]').count()).toBe(history.length);
  });
});
