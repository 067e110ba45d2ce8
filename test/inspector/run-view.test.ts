import { Client } from "@langchain/langgraph-sdk";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browserSkipReason, finishedRun, launchBrowser, newInspectorPage, screenshot, startInspectorServer, type InspectorServer } from "./browser.js";

const skip = browserSkipReason();

interface Message {
  type: string;
  content: unknown;
  id?: string;
}

/** A finished demo run (delegation, acceptance checklist, files) as the inspector shows it. */
describe.skipIf(skip !== undefined)("the run inspector: a finished run", () => {
  let server: InspectorServer;
  let browser: Browser;
  let page: Page;
  let client: Client;
  let threadId: string;
  let runId: string;
  let journal: Array<{ seq: number; kind: string; agent: string }>;

  beforeAll(async () => {
    [server, browser] = await Promise.all([startInspectorServer(), launchBrowser()]);
    page = await newInspectorPage(browser);
    client = new Client({ apiUrl: server.url, callerOptions: { maxRetries: 0 } });
    ({ threadId, runId } = await finishedRun(client, "Show me what you can do."));
    journal = (await (await fetch(`${server.url}/threads/${threadId}/runs/${runId}/journal`)).json()) as typeof journal;
  }, 60_000);

  /** Open the run's page on one tab. */
  async function openTab(tab: string): Promise<void> {
    await page.goto(`${server.url}/#/runs/${threadId}/${runId}`);
    await page.locator(`button[data-tab="${tab}"]`).click();
  }

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it("the timeline shows every journal entry and the run's checkpoints, each marked with its source, and `end` last as the commit point", async () => {
    await page.goto(`${server.url}/#/runs/${threadId}/${runId}`);
    await page.locator('[data-testid="timeline"] tr[data-commit="true"]').waitFor();
    const rows = page.locator('[data-testid="timeline"] tr');
    expect(await page.locator('[data-testid="timeline"] tr[data-source="journal"]').count()).toBe(journal.length);
    // The demo's run writes one checkpoint per step: the input and at least one per model call of the lead.
    const history = (await client.threads.getHistory(threadId, { limit: 100 })) as Array<{ checkpoint: { checkpoint_id: string } }>;
    const checkpointRows = page.locator('[data-testid="timeline"] tr[data-source="checkpoint"]');
    expect(await checkpointRows.count()).toBe(history.length);
    expect(await checkpointRows.first().innerText()).toContain(history.at(-1)!.checkpoint.checkpoint_id);
    expect(await page.locator('[data-testid="timeline"] tr[data-source="stream"]').count()).toBeGreaterThan(1);
    const last = rows.last();
    expect(await last.getAttribute("data-commit")).toBe("true");
    expect(await last.innerText()).toContain("commit point");
    expect(await page.locator('[data-testid="timeline"]').innerText()).toContain("tool write_file");
    await screenshot(page, "run-timeline");
  });

  it("the delegation tree renders the subagent's acceptance checklist as holds, and its citation verdict", async () => {
    await openTab("delegations");
    const delegation = page.locator('[data-testid="delegation"]');
    await delegation.first().waitFor();
    expect(await delegation.count()).toBe(1);
    expect(await delegation.getAttribute("data-agent")).toMatch(/^lead\/call_/);
    const verdicts = await page.locator('[data-testid="acceptance-checklist"] tr').evaluateAll((rows) => rows.map((r) => `${r.getAttribute("data-verdict")} ${r.querySelector("code")?.textContent}`));
    expect(verdicts).toEqual(["holds file:tides.mjs exists", "holds file_written:tides.test.mjs", "holds tests_passed:node tides.test.mjs"]);
    expect(await page.locator('[data-testid="citation-verdict"]').innerText()).toContain("citations resolved: 3/3 resolved");
    await screenshot(page, "run-delegations");
  });

  it("model requests fold the system prompts; files list each write with its receipt", async () => {
    await openTab("requests");
    const requests = page.locator('[data-testid="model-requests"] > details');
    await requests.first().waitFor();
    expect(await requests.count()).toBe(8); // 3 lead turns + 5 subagent turns
    await requests.first().click();
    const system = page.locator('[data-testid="system-prompt"]').first();
    expect(await system.getAttribute("open")).toBeNull();
    expect(await system.locator("summary").innerText()).toMatch(/^system prompt \(\d+ characters\)/);

    await page.locator('button[data-tab="files"]').click();
    const row = page.locator('[data-testid="files"] tr[data-file="tides.mjs"]');
    await row.waitFor();
    expect(await row.innerText()).toMatch(/r\d+ write_file by lead\/call_\S+ · success/);
    expect(await page.locator('[data-testid="files"] tr[data-file="README.md"]').innerText()).toContain("not written by this run");
  });

  it("the token chart draws one line per agent", async () => {
    await openTab("tokens");
    await page.locator('[data-testid="token-chart"] svg').waitFor();
    const agents = await page.locator("[data-testid=token-chart] polyline").evaluateAll((lines) => lines.map((l) => l.getAttribute("data-agent")));
    expect(agents).toHaveLength(2);
    expect(agents[0]).toBe("lead");
    expect(await page.locator('[data-testid="token-chart"]').innerText()).toContain("budget warn: 140000 tokens");
  });

  it("the replay debugger scrubs checkpoint by checkpoint and forks from a middle one into a new run that continues from its state", async () => {
    await openTab("replay");
    const scrubber = page.locator('[data-testid="scrubber"]');
    await scrubber.waitFor();
    const history = (await client.threads.getHistory(threadId, { limit: 100 })) as unknown as Array<{ checkpoint: { checkpoint_id: string }; metadata: { step: number }; values: { messages: Message[] } }>;
    const oldestFirst = [...history].reverse();
    // Oldest first: the input (step -1), the state before the lead's first model call (step 0), after it (step 1), after its tools (step 2).
    await scrubber.fill("2");
    expect(await page.locator('[data-testid="replay-checkpoint"]').innerText()).toContain(oldestFirst[2]!.checkpoint.checkpoint_id);
    // Step 0 → 1 is the lead's first model call: that journal entry is beside this checkpoint, and no tool call is.
    const step1 = await page.locator('[data-testid="replay-journal"]').innerText();
    expect(step1).toMatch(/ lead model call turn 1 — ok/);
    expect(step1).not.toContain("tool task");
    await scrubber.fill("3");
    expect(await page.locator('[data-testid="replay-checkpoint"]').innerText()).toContain(oldestFirst[3]!.checkpoint.checkpoint_id);
    const step2 = await page.locator('[data-testid="replay-journal"]').innerText();
    expect(step2).toMatch(/ lead tool task — success/);
    expect(step2).not.toMatch(/ lead model call turn 1 /);
    await screenshot(page, "run-replay");

    // Fork from a middle checkpoint: after the lead's tools step (the task's result), before its second model call.
    // It holds that model step's pending writes (LangGraph files a step's writes under the checkpoint it started from).
    const middle = oldestFirst[3]!;
    const saved = (await client.threads.getState(threadId, middle.checkpoint.checkpoint_id)) as unknown as { values: { messages: Message[] } };
    expect(saved.values.messages.map((m) => m.type)).toEqual(["human", "ai", "tool"]);
    const laterAnswer = oldestFirst[4]!.values.messages[3]!;
    expect(laterAnswer.content).toBe("Checking the result myself.");
    await scrubber.fill("3");
    await page.locator('[data-testid="fork-input"]').fill("And now a second helper.");
    await page.locator('[data-testid="fork"]').click();
    await page.waitForFunction((old) => !location.hash.endsWith(old) || document.querySelector("[data-testid=fork-error]") !== null, runId);
    const refused = page.locator("[data-testid=fork-error]");
    if ((await refused.count()) > 0) throw new Error(`the fork was refused: ${await refused.innerText()}`);
    const forkedId = decodeURIComponent(new URL(page.url()).hash.split("/").at(-1)!);
    expect(forkedId).not.toBe(runId);
    const forked = await client.runs.get(threadId, forkedId);
    expect((forked.kwargs as { checkpoint_id?: string }).checkpoint_id).toBe(middle.checkpoint.checkpoint_id);
    expect((forked.kwargs as { input?: unknown }).input).toBe("And now a second helper.");
    await page.locator('[data-testid="run-page"]').getByText("forked from checkpoint").waitFor();
    await client.runs.join(threadId, forkedId);
    // The new run continued from that state: its three messages, then the new input and the new run's own turns;
    // the original's later answer (the step that followed the checkpoint) is not in it.
    const after = (await client.threads.getState(threadId)).values as { messages: Message[] };
    expect(after.messages.slice(0, 3).map((m) => [m.id, m.content])).toEqual(saved.values.messages.map((m) => [m.id, m.content]));
    expect(after.messages[3]).toMatchObject({ type: "human", content: "And now a second helper." });
    expect(after.messages[4]).toMatchObject({ type: "ai", content: "I'll delegate the helper and its test to a subagent, with acceptance criteria I can check." });
    expect(after.messages.map((m) => m.id)).not.toContain(laterAnswer.id);
    expect((await client.runs.get(threadId, forkedId)).status).toBe("success");
  });
});
