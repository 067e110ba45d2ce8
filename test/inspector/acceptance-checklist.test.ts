import { join } from "node:path";
import { Client } from "@langchain/langgraph-sdk";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packageRoot } from "../../kernel/package-root.js";
import { browserSkipReason, finishedRun, launchBrowser, newInspectorPage, screenshot, startInspectorServer, type InspectorServer } from "./browser.js";

const skip = browserSkipReason();
const SCENARIO = join(packageRoot(), "test", "inspector", "fixtures", "acceptance-mixed.scenario.json");

/**
 * A scripted run whose subagent's acceptance criteria are partly met, partly not, partly
 * unverifiable: the verdicts are the acceptance plugin's, over the run's real workspace and
 * bash records; the page renders each one.
 */
describe.skipIf(skip !== undefined)("the run inspector: an acceptance checklist with every verdict", () => {
  let server: InspectorServer;
  let browser: Browser;
  let page: Page;
  let threadId: string;
  let runId: string;

  beforeAll(async () => {
    [server, browser] = await Promise.all([startInspectorServer({ model: `scripted:${SCENARIO}` }), launchBrowser()]);
    page = await newInspectorPage(browser);
    const client = new Client({ apiUrl: server.url, callerOptions: { maxRetries: 0 } });
    ({ threadId, runId } = await finishedRun(client, "Write the notes and run both checks."));
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it("each criterion is one row: holds, does not hold (a missing file, a failing test run) or UNVERIFIED (no test shape, not checkable), with the evidence", async () => {
    await page.goto(`${server.url}/#/runs/${threadId}/${runId}`);
    await page.locator('button[data-tab="delegations"]').click();
    await page.locator('[data-testid="acceptance-checklist"]').waitFor();
    const rows = await page.locator('[data-testid="acceptance-checklist"] tr').evaluateAll((trs) =>
      trs.map((tr) => ({ verdict: tr.getAttribute("data-verdict"), cells: [...tr.querySelectorAll("td")].map((td) => td.textContent ?? "") })),
    );
    // One row per criterion: the verdict's `unchecked` names the UNVERIFIED leaves again, and is not listed twice.
    expect(rows.map((r) => [r.verdict, r.cells[0], r.cells[1]])).toEqual([
      ["holds", "holds", "file:notes.md exists"],
      ["does not hold", "does not hold", "file:missing.md exists"],
      ["does not hold", "does not hold", "tests_passed:node check.mjs"],
      ["UNVERIFIED", "UNVERIFIED", "tests_passed:node quiet.mjs"],
      ["UNVERIFIED", "UNVERIFIED", "the notes are accurate"],
    ]);
    const details = rows.map((r) => r.cells[2]);
    expect(details[0]).toMatch(/^exists, \d+ bytes$/);
    expect(details[1]).toBe("file does not exist");
    expect(details[2]).toBe("exit code 1; output shows `1 failed`");
    expect(details[3]).toBe("exit 0 but the output tail shows no test summary");
    expect(details[4]).toBe("not deterministically checkable");
    await screenshot(page, "acceptance-checklist");
  });
});
