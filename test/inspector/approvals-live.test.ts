import { join } from "node:path";
import { Client } from "@langchain/langgraph-sdk";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIXTURES } from "../e2e/serve-process.js";
import { browserSkipReason, launchBrowser, screenshot, startInspectorServer, type InspectorServer } from "./browser.js";

const skip = browserSkipReason();

type Values = { messages?: Array<{ type: string; name?: string; content: unknown }>; approvals?: Array<{ decision: string }> };

/**
 * The inspector against a real interrupted run of `lead-approval` (human-approval's policy
 * from the assistant's context): the page shows the plugin's HITL request, the decisions made
 * in the page resume the run on the server, and the approved write really ran (the run's last
 * `cat` reads it back), the rejected one did not.
 */
describe.skipIf(skip !== undefined)("the run inspector: approving a real human-approval pause", () => {
  let server: InspectorServer;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    [server, browser] = await Promise.all([startInspectorServer({ model: `scripted:${join(FIXTURES, "approval.scenario.json")}`, stack: ["lead-approval"] }), launchBrowser()]);
    page = await browser.newPage();
    page.setDefaultTimeout(15_000);
    page.on("pageerror", (error) => console.error("page error:", error.message));
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it("approve one write and reject the other in the page: the run resumes and only the approved write ran", async () => {
    const client = new Client({ apiUrl: server.url, callerOptions: { maxRetries: 0 } });
    const assistant = await client.assistants.create({ graphId: "lead-approval", context: { plugins: { "human-approval": { interruptOn: { write_file: true } } } } });
    const thread = await client.threads.create();
    const created = await client.runs.create(thread.thread_id, assistant.assistant_id, { input: "Write two notes." });
    await client.runs.join(thread.thread_id, created.run_id);
    expect((await client.threads.get(thread.thread_id)).status).toBe("interrupted");

    await page.goto(`${server.url}/#/runs/${thread.thread_id}/${created.run_id}`);
    const approvals = page.locator('[data-testid="approvals"]');
    await approvals.waitFor();
    expect(await approvals.locator('.approval[data-action="write_file"]').count()).toBe(2);
    await approvals.locator('.approval[data-action="write_file"]').nth(1).locator('[data-testid="decision-reject"]').check();
    await approvals.locator('.approval[data-action="write_file"]').nth(1).locator('[data-testid="reject-message"]').fill("not b.md");
    await screenshot(page, "approvals-live");
    await approvals.locator('[data-testid="resume"]').click();

    await expect.poll(async () => (await client.threads.get(thread.thread_id)).status, { timeout: 20_000 }).toBe("idle");
    const values = (await client.threads.getState(thread.thread_id)).values as Values;
    const lastBash = values.messages!.filter((m) => m.type === "tool" && m.name === "bash").at(-1)!;
    expect(String(lastBash.content)).toMatch(/^A\nno-b\n/);
    expect(values.approvals!.map((a) => a.decision)).toEqual(["approve", "reject"]);
    expect(values.messages!.find((m) => m.type === "tool" && m.content === "not b.md")).toBeDefined();
  }, 60_000);
});
