import { join } from "node:path";
import { Client } from "@langchain/langgraph-sdk";
import type { Browser, Page, Route } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIXTURES } from "../e2e/serve-process.js";
import { browserSkipReason, finishedRun, launchBrowser, newInspectorPage, screenshot, startInspectorServer, type InspectorServer } from "./browser.js";

const skip = browserSkipReason();

/**
 * Approve / edit / reject of an interrupted run's pending tool calls, in the LangChain v1 HITL
 * shape. Here the thread's answer is replaced by an interrupted one and the resume request is
 * captured, so the page is checked against the shape — what it shows and exactly what it sends;
 * approvals-live.test.ts runs the same page against a real human-approval pause.
 */
describe.skipIf(skip !== undefined)("the run inspector: approvals of an interrupted run (HITL request shape)", () => {
  let server: InspectorServer;
  let browser: Browser;
  let page: Page;
  let run: { thread_id: string; run_id: string };

  const hitl = {
    actionRequests: [
      { name: "write_file", args: { path: "note.md", content: "Tides follow the moon.\n" }, description: "Tool execution requires approval" },
      { name: "bash", args: { command: "rm -rf build" }, description: "Tool execution requires approval" },
    ],
    reviewConfigs: [
      { actionName: "write_file", allowedDecisions: ["approve", "edit", "reject"] },
      { actionName: "bash", allowedDecisions: ["approve", "reject"] },
    ],
  };

  beforeAll(async () => {
    [server, browser] = await Promise.all([startInspectorServer({ model: `scripted:${join(FIXTURES, "steps.scenario.json")}` }), launchBrowser()]);
    const client = new Client({ apiUrl: server.url, callerOptions: { maxRetries: 0 } });
    const { threadId, runId } = await finishedRun(client, "Write a note.");
    run = { thread_id: threadId, run_id: runId };
    page = await newInspectorPage(browser, 15_000);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it("shows each pending tool call; edit and reject decisions are sent as command.resume.decisions", async () => {
    await page.route(`${server.url}/threads/${run.thread_id}`, async (route: Route) => {
      const response = await route.fetch();
      const thread = (await response.json()) as Record<string, unknown>;
      await route.fulfill({ response, json: { ...thread, status: "interrupted", interrupts: { task1: [{ value: hitl, id: "i1" }] } } });
    });
    let sent: unknown;
    await page.route(`${server.url}/threads/${run.thread_id}/runs`, async (route: Route) => {
      if (route.request().method() !== "POST") return route.fallback();
      sent = route.request().postDataJSON();
      // The resumed run: answered with the finished run, so the page navigates to a real one.
      await route.fulfill({ json: { run_id: run.run_id, thread_id: run.thread_id, assistant_id: "lead", status: "pending" } });
    });

    await page.goto(`${server.url}/#/runs/${run.thread_id}/${run.run_id}`);
    const approvals = page.locator('[data-testid="approvals"]');
    await approvals.waitFor();
    expect(await approvals.locator(".approval").count()).toBe(2);
    expect(await approvals.locator('.approval[data-action="bash"]').innerText()).toContain("rm -rf build");
    // bash's review config allows no edit.
    expect(await approvals.locator('.approval[data-action="bash"] [data-testid="decision-edit"]').count()).toBe(0);

    await approvals.locator('.approval[data-action="write_file"] [data-testid="decision-edit"]').check();
    await approvals.locator('.approval[data-action="write_file"] [data-testid="edit-args"]').fill('{ "path": "note.md", "content": "Edited.\\n" }');
    await approvals.locator('.approval[data-action="bash"] [data-testid="decision-reject"]').check();
    await approvals.locator('.approval[data-action="bash"] [data-testid="reject-message"]').fill("never delete build/");
    await screenshot(page, "approvals");
    await approvals.locator('[data-testid="resume"]').click();
    await expect.poll(() => sent).toBeDefined();
    expect(sent).toEqual({
      assistant_id: "lead",
      command: {
        resume: {
          decisions: [
            { type: "edit", editedAction: { name: "write_file", args: { path: "note.md", content: "Edited.\n" } } },
            { type: "reject", message: "never delete build/" },
          ],
        },
      },
    });
  });

  it("approve is the default decision, and arguments that are not JSON are refused before anything is sent", async () => {
    let sent: unknown[] = [];
    await page.unrouteAll({ behavior: "wait" });
    await page.route(`${server.url}/threads/${run.thread_id}`, async (route: Route) => {
      const response = await route.fetch();
      await route.fulfill({ response, json: { ...((await response.json()) as object), status: "interrupted", interrupts: { t: [{ value: { actionRequests: [hitl.actionRequests[0]] } }] } } });
    });
    await page.route(`${server.url}/threads/${run.thread_id}/runs`, async (route: Route) => {
      if (route.request().method() !== "POST") return route.fallback();
      sent = [...sent, route.request().postDataJSON()];
      await route.fulfill({ json: { run_id: run.run_id, thread_id: run.thread_id, assistant_id: "lead", status: "pending" } });
    });
    await page.goto(`${server.url}/#/`);
    await page.goto(`${server.url}/#/runs/${run.thread_id}/${run.run_id}`);
    const approvals = page.locator('[data-testid="approvals"]');
    await approvals.waitFor();
    await approvals.locator('[data-testid="decision-edit"]').check();
    await approvals.locator('[data-testid="edit-args"]').fill("{ not json");
    await approvals.locator('[data-testid="resume"]').click();
    await approvals.locator(".error", { hasText: "not JSON" }).waitFor();
    expect(sent).toEqual([]);
    await approvals.locator('[data-testid="decision-approve"]').check();
    await approvals.locator('[data-testid="resume"]').click();
    await expect.poll(() => sent.length).toBe(1);
    expect(sent[0]).toEqual({ assistant_id: "lead", command: { resume: { decisions: [{ type: "approve" }] } } });
  });
});
