import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@langchain/langgraph-sdk";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIXTURES } from "../e2e/serve-process.js";
import { browserSkipReason, launchBrowser, newInspectorPage, screenshot, startInspectorServer, type InspectorServer } from "./browser.js";

const skip = browserSkipReason();

/** The runs list over the run-status feed: it changes while runs progress, without a reload. */
describe.skipIf(skip !== undefined)("the run inspector: the live runs list", () => {
  let demo: InspectorServer;
  let scripted: InspectorServer;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    // The demo model (what `npm start` serves), and the e2e `steps` script whose first bash call waits while the workspace holds `hold`.
    [demo, scripted, browser] = await Promise.all([startInspectorServer(), startInspectorServer({ model: `scripted:${join(FIXTURES, "steps.scenario.json")}` }), launchBrowser()]);
    page = await newInspectorPage(browser, 15_000);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await Promise.all([demo?.close(), scripted?.close()]);
  });

  it("'Start a demo run' on the demo model: the new run appears in the list and turns to success, with its turns and tokens, no reload", async () => {
    await page.goto(`${demo.url}/`);
    await page.locator('[data-testid="feed-state"]', { hasText: "live" }).waitFor();
    expect(await page.locator('[data-testid="no-runs"]').innerText()).toContain("No runs yet");
    await page.locator('[data-testid="start-demo"]').click();
    const row = page.locator("table[data-testid=runs] tbody tr");
    await row.first().waitFor();
    const runId = await row.first().getAttribute("data-run-id");
    await page.locator(`tr[data-run-id="${runId}"][data-status="success"]`).waitFor({ timeout: 25_000 });
    const text = await page.locator(`tr[data-run-id="${runId}"]`).innerText();
    expect(text).toContain("succeeded");
    expect(text).toContain("finished");
    const cells = await page.locator(`tr[data-run-id="${runId}"] td`).allInnerTexts();
    expect(cells[2]).toBe("lead");
    expect(cells[3]).toBe("local");
    expect(Number(cells[6])).toBe(3); // the demo lead's three turns
    expect(Number(cells[7])).toBeGreaterThan(0);
    // The thread is listed with its run.
    expect(await page.locator('[data-testid="threads"] li').count()).toBe(1);
    await screenshot(page, "runs-demo");
  });

  it("a run waiting in a tool shows running and that it is in a tool call, then success when it ends", async () => {
    const client = new Client({ apiUrl: scripted.url, callerOptions: { maxRetries: 0 } });
    await page.goto(`${scripted.url}/`);
    await page.locator('[data-testid="feed-state"]', { hasText: "live" }).waitFor();
    // No demo model here: no demo button.
    expect(await page.locator('[data-testid="start-demo"]').count()).toBe(0);
    const thread = await client.threads.create();
    const hold = join(scripted.server.workspacesDir, thread.thread_id, "hold");
    mkdirSync(join(scripted.server.workspacesDir, thread.thread_id), { recursive: true });
    writeFileSync(hold, "");
    const run = await client.runs.create(thread.thread_id, "lead", { input: "Write a note." });
    const row = page.locator(`tr[data-run-id="${run.run_id}"]`);
    await page.locator(`tr[data-run-id="${run.run_id}"][data-status="running"]`).waitFor();
    // The feed names the tool when the run's `updates` carry the model's message; else it says "tool call".
    await row.locator('[data-testid="run-activity"]', { hasText: /^tool( bash| call)$/ }).waitFor();
    await screenshot(page, "runs-running");
    rmSync(hold);
    await page.locator(`tr[data-run-id="${run.run_id}"][data-status="success"]`).waitFor();
    expect(await row.locator('[data-testid="run-activity"]').innerText()).toBe("finished");

    // Filters: a status the run does not have hides it; its own shows it.
    await page.locator('[data-testid="filter-status"]').selectOption("error");
    await page.locator('[data-testid="no-runs"]').waitFor();
    await page.locator('[data-testid="filter-status"]').selectOption("success");
    await row.waitFor();
    await page.locator('[data-testid="filter-assistant"]').selectOption("lead");
    await row.waitFor();
  });

  it("a retry backoff counts down to the feed's retry_at (the page's clock), and a paused run says it awaits approval", async () => {
    const context = await browser.newContext();
    const fake = await context.newPage();
    const now = Date.parse("2026-01-01T12:00:00.000Z");
    // Date.now() is fixed (timers still run): the countdown is read off the page's clock, set below.
    await fake.clock.setFixedTime(now);
    const summary = (runId: string, activity: object) => ({
      thread_id: "t1", run_id: runId, assistant_id: "lead", user: "local", status: "running", outcome: null, stop_reasons: [], turns: 2,
      tokens: { input: 10, output: 5, total: 15 }, created_at: "2026-01-01T11:59:00.000Z", updated_at: "2026-01-01T12:00:00.000Z", ended_at: null, activity,
    });
    const snapshot = { runs: [summary("run-retry", { kind: "retry", retry_in_ms: 8000, retry_at: "2026-01-01T12:00:08.000Z" }), { ...summary("run-paused", { kind: "awaiting_input" }), status: "interrupted", ended_at: "2026-01-01T12:00:00.000Z" }] };
    // The feed as the server would send it (held open: the page must not take a closed feed for the end).
    await fake.route(`${scripted.url}/keel/feed*`, (route) => route.fulfill({ status: 200, headers: { "content-type": "text/event-stream" }, body: `event: snapshot\ndata: ${JSON.stringify(snapshot)}\n\n` }));
    await fake.goto(`${scripted.url}/`);
    const retry = fake.locator('tr[data-run-id="run-retry"] [data-testid="run-activity"]');
    await retry.waitFor();
    expect(await retry.innerText()).toBe("retry backoff: retry in 8.0 s");
    await fake.clock.setFixedTime(now + 5000);
    await retry.filter({ hasText: "retry backoff: retry in 3.0 s" }).waitFor();
    await fake.clock.setFixedTime(now + 9000);
    await retry.filter({ hasText: "retrying now" }).waitFor();
    expect(await fake.locator('tr[data-run-id="run-paused"] [data-testid="run-activity"]').innerText()).toBe("awaiting approval");
    await context.close();
  });

  it("without the feed (404) the list is read once and each active run is followed through its own stream until its end", async () => {
    const client = new Client({ apiUrl: scripted.url, callerOptions: { maxRetries: 0 } });
    const context = await browser.newContext();
    const older = await context.newPage();
    await older.route(`${scripted.url}/keel/feed*`, (route) => route.fulfill({ status: 404, json: { error: "KEEL_ERR_HTTP_NOT_FOUND", message: "no route GET /keel/feed" } }));
    const thread = await client.threads.create();
    const hold = join(scripted.server.workspacesDir, thread.thread_id, "hold");
    mkdirSync(join(scripted.server.workspacesDir, thread.thread_id), { recursive: true });
    writeFileSync(hold, "");
    const run = await client.runs.create(thread.thread_id, "lead", { input: "Write a note." });
    await older.goto(`${scripted.url}/`);
    await older.locator('[data-testid="feed-state"]', { hasText: "no run-status feed" }).waitFor();
    await older.locator(`tr[data-run-id="${run.run_id}"]`).waitFor();
    expect(await older.locator(`tr[data-run-id="${run.run_id}"]`).getAttribute("data-status")).toMatch(/^(pending|running)$/);
    rmSync(hold);
    await older.locator(`tr[data-run-id="${run.run_id}"][data-status="success"]`).waitFor();
    expect(await older.locator(`tr[data-run-id="${run.run_id}"]`).innerText()).toContain("succeeded");
    await context.close();
  });
});
