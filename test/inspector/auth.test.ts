import { Client } from "@langchain/langgraph-sdk";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browserSkipReason, launchBrowser, newInspectorPage, screenshot, startInspectorServer, type InspectorServer } from "./browser.js";

const skip = browserSkipReason();

/** A server with API keys: the page asks for one, keeps it in sessionStorage, sends it as a header, shows only that user's runs. */
describe.skipIf(skip !== undefined)("the run inspector with API keys", () => {
  let server: InspectorServer;
  let browser: Browser;
  let page: Page;
  let aliceRun: { thread_id: string; run_id: string };
  let bobRun: { thread_id: string; run_id: string };
  const urls: string[] = [];
  const keyHeaders: string[] = [];

  beforeAll(async () => {
    [server, browser] = await Promise.all([startInspectorServer({}, { KEEL_API_KEYS: "key-alice:alice,key-bob:bob" }), launchBrowser()]);
    const client = (apiKey: string) => new Client({ apiUrl: server.url, apiKey, callerOptions: { maxRetries: 0 } });
    const start = async (c: Client) => {
      const thread = await c.threads.create();
      const run = await c.runs.create(thread.thread_id, "lead", { input: "Show me what you can do." });
      await c.runs.join(thread.thread_id, run.run_id);
      return { thread_id: thread.thread_id, run_id: run.run_id };
    };
    [aliceRun, bobRun] = await Promise.all([start(client("key-alice")), start(client("key-bob"))]);
    page = await newInspectorPage(browser, 15_000);
    page.on("request", (request) => {
      urls.push(request.url());
      const key = request.headers()["x-api-key"];
      if (key) keyHeaders.push(key);
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it("asks for a key, then lists only that user's runs; the key travels as a header, never in a URL", async () => {
    await page.goto(`${server.url}/`);
    await page.locator('[data-testid="key-form"]').waitFor();
    expect(await page.locator("table[data-testid=runs]").count()).toBe(0);
    await screenshot(page, "auth-key-form");

    await page.locator('[data-testid="api-key"]').fill("key-bob");
    await page.locator('[data-testid="key-form"] button[type="submit"]').click();
    await page.locator(`tr[data-run-id="${bobRun.run_id}"]`).waitFor();
    await page.locator('[data-testid="feed-state"]', { hasText: "live" }).waitFor();
    expect(await page.locator(`tr[data-run-id="${aliceRun.run_id}"]`).count()).toBe(0);
    expect(await page.locator("table[data-testid=runs] tbody tr").count()).toBe(1);
    expect((await page.locator(`tr[data-run-id="${bobRun.run_id}"] td`).allInnerTexts())[3]).toBe("bob");
    expect(await page.evaluate(() => sessionStorage.getItem("keel.inspector.apiKey"))).toBe("key-bob");
    await screenshot(page, "auth-bob");

    // Alice's run by its address: the same 404 as a missing run, shown as an error, nothing of hers.
    await page.goto(`${server.url}/#/runs/${aliceRun.thread_id}/${aliceRun.run_id}`);
    await page.locator("main .error").waitFor();
    expect(await page.locator("main").innerText()).toContain("not found");
    expect(await page.locator('[data-testid="run-page"]').count()).toBe(0);

    // The key survives a reload (sessionStorage) and was only ever sent as the x-api-key header.
    await page.goto(`${server.url}/#/runs/${bobRun.thread_id}/${bobRun.run_id}`);
    await page.locator('[data-testid="timeline"] tr[data-commit="true"]').waitFor();
    expect(keyHeaders.length).toBeGreaterThan(3);
    expect(new Set(keyHeaders)).toEqual(new Set(["key-bob"]));
    expect(urls.filter((url) => url.includes("key-bob") || url.includes("api_key") || url.includes("api-key"))).toEqual([]);
  });

  it("a wrong key is asked for again", async () => {
    await page.evaluate(() => sessionStorage.setItem("keel.inspector.apiKey", "not-a-key"));
    await page.goto(`${server.url}/`);
    await page.locator('[data-testid="key-form"]', { hasText: "the key was refused" }).waitFor();
  });
});
