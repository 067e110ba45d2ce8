/**
 * The run inspector's page on a large recorded run: a real `keel serve` (tools/serve,
 * SQLite, in this process on loopback) runs a scripted run of 1,000 model turns — the lead's
 * SUBAGENTS + 1 turns, SUBAGENTS `task` calls one per turn, each subagent CHILD_TURNS turns
 * (`read_file` calls, then `return_result`) — through the run service, so the journal, the
 * report, the checkpoints and the stream events are the ones a real run records. Then in
 * headless Chromium (playwright-core, the system's browser: KEEL_CHROMIUM or
 * /usr/bin/chromium) the time from navigation until the text of the run's first journal entry
 * is visible on the run's page (`/#/runs/<thread>/<run>`, the bundle and its API answers
 * from the gateway), against a static HTML page of the same data (the run's journal and
 * checkpoints as one table, generated here from the same API answers, served by a bare
 * node:http server in this process). Each load in a fresh browser context (no cache); the two
 * pages interleaved ROUNDS times; the figure is the median ratio (goal ≤ 2×), and each page's
 * transfer size (response bodies until the text is visible, decoded bytes).
 *
 * Without a browser the suite prints why and measures nothing.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { Client } from "@langchain/langgraph-sdk";

const SUBAGENTS = 20;
/** Each subagent's turns: CHILD_TURNS - 1 `read_file` calls, then `return_result`; with the lead's 21, 1,001 turns. */
const CHILD_TURNS = 49;
const ROUNDS = 5;
const CHROMIUM = process.env.KEEL_CHROMIUM ?? "/usr/bin/chromium";

interface JournalEntry {
  seq: number;
  kind: string;
  name?: string;
  turn?: number;
  agent?: string;
  status?: string;
  at: string;
}
interface Checkpoint {
  checkpoint: { checkpoint_id: string };
  metadata?: { step?: number; source?: string };
  next: string[];
  created_at?: string;
}

/** The scenario@1 of the recorded run. */
function scenario(): Record<string, unknown> {
  const files = Object.fromEntries(Array.from({ length: CHILD_TURNS - 1 }, (_, i) => [`notes/${i + 1}.md`, `# Note ${i + 1}\n${"tide ".repeat(30)}\n`]));
  const lead = Array.from({ length: SUBAGENTS }, (_, i) => ({
    content: `Delegating part ${i + 1}.`,
    toolCalls: [{ name: "task", args: { description: `Read the notes, part ${i + 1}`, prompt: `Read every note and report on part ${i + 1}.`, subagentType: "general-purpose" } }],
  }));
  const child = Array.from({ length: CHILD_TURNS - 1 }, (_, i) => ({ content: `Reading note ${i + 1}.`, toolCalls: [{ name: "read_file", args: { path: `notes/${i + 1}.md` } }] }));
  const done = { toolCalls: [{ name: "return_result", args: { status: "succeeded", text: `Read ${CHILD_TURNS - 1} notes.`, completedSteps: ["read the notes"], missingSteps: [] } }] };
  return {
    contract: "scenario",
    version: 1,
    name: "bench-page",
    stack: "lead",
    input: "Read the notes in parts.",
    workspace: { files },
    agents: { lead: { turns: [...lead, { content: `All ${SUBAGENTS} parts read.` }], then: "stop" }, "general-purpose": { turns: [...child, done], then: "stop" } },
  };
}

/** The text the run's page shows for a journal entry (the inspector's timeline label, inspector/timeline.ts). */
function journalLabel(entry: JournalEntry): string {
  if (entry.kind === "model_call") return `model call · turn ${entry.turn}`;
  if (entry.kind === "tool_call") return `tool ${entry.name ?? "?"} · turn ${entry.turn}`;
  if (entry.kind === "lifecycle") return entry.name ?? "lifecycle";
  return `${entry.kind}${entry.name ? ` ${entry.name}` : ""}`;
}

const escapeHtml = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** The static page: the run's journal entries and checkpoints, one table, no script. */
function staticPage(runId: string, journal: readonly JournalEntry[], checkpoints: readonly Checkpoint[]): string {
  const rows = [
    ...journal.map((e) => `<tr data-source="journal"><td>${escapeHtml(e.at)}</td><td>journal</td><td><code>${escapeHtml(e.agent ?? "")}</code></td><td>${escapeHtml(journalLabel(e))}</td><td>${escapeHtml(e.status ?? "")}</td></tr>`),
    ...checkpoints.map((c) => `<tr data-source="checkpoint"><td>${escapeHtml(c.created_at ?? "")}</td><td>checkpoint</td><td></td><td>checkpoint step ${c.metadata?.step ?? "?"} (${escapeHtml(c.metadata?.source ?? "?")})</td><td>${escapeHtml(c.checkpoint.checkpoint_id)} · next: ${escapeHtml(c.next.join(", "))}</td></tr>`),
  ];
  return `<!doctype html><html><head><meta charset="utf-8"><title>Run ${escapeHtml(runId)}</title></head><body><h2>Run <code>${escapeHtml(runId)}</code></h2><table><tbody>${rows.join("")}</tbody></table></body></html>`;
}

async function serveStatic(html: string): Promise<{ url: string; server: Server }> {
  const server = createServer((_request, response) => {
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    response.end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  return { url: `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}/`, server };
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
};
const kib = (bytes: number) => `${(bytes / 1024).toFixed(0)} KiB`;

export async function benchPage(): Promise<string[]> {
  if (!existsSync(CHROMIUM)) return [`page: skipped (no Chromium at ${CHROMIUM}: install Debian's \`chromium\` or set KEEL_CHROMIUM)`];
  const { chromium } = await import("playwright-core");
  const { resolveServeOptions } = await import("../serve/serve-options.js");
  const { startServer } = await import("../serve/start-server.js");
  const dir = mkdtempSync(join(tmpdir(), "keel-bench-page-"));
  const file = join(dir, "page.scenario.json");
  writeFileSync(file, JSON.stringify(scenario()));
  const options = resolveServeOptions({ port: "0", db: `sqlite:${join(dir, "keel.db")}`, model: `scripted:${file}`, bash: "off", "max-turns": "5000" }, {}, dir);
  const server = await startServer(options, { version: "bench", log: () => undefined, cwd: dir });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"], headless: true });
  let staticServer: Server | undefined;
  try {
    // The recorded run, through the run service.
    const recordStarted = performance.now();
    const client = new Client({ apiUrl: server.url, callerOptions: { maxRetries: 0 } });
    const { thread_id: threadId } = await client.threads.create();
    const { run_id: runId } = await client.runs.create(threadId, "lead", {
      input: { messages: [{ role: "user", content: "Read the notes in parts." }] },
      // 1,000 turns use far more than the lead's default 200,000 tokens, and 20 children more than a run's default 6.
      context: { plugins: { "token-budget": { limit: 100_000_000 }, "batch-leasing": { total: SUBAGENTS, budget: 100_000_000 } } },
    } as never);
    await client.runs.join(threadId, runId);
    const recordSeconds = (performance.now() - recordStarted) / 1000;
    const run = await client.runs.get(threadId, runId);
    const journal = (await (await fetch(`${server.url}/threads/${threadId}/runs/${runId}/journal`)).json()) as JournalEntry[];
    const history = (await client.threads.getHistory(threadId, { limit: 1000 })) as unknown as Checkpoint[];
    const modelCalls = journal.filter((e) => e.kind === "model_call").length;
    const agents = new Set(journal.map((e) => e.agent).filter((a) => a && a !== "lead")).size;
    if (run.status !== "success" || modelCalls < 1000 || agents !== SUBAGENTS) {
      throw new Error(`page bench: the recorded run is not the one described (status ${run.status}, ${modelCalls} model calls, ${agents} subagents, stop reasons ${JSON.stringify((run as { outcome?: { stopReasons?: unknown } }).outcome?.stopReasons)})`);
    }
    const first = journal[0]!;
    const firstText = journalLabel(first);
    const page = await serveStatic(staticPage(runId, journal, [...history].reverse()));
    staticServer = page.server;

    const targets = [
      { label: "run inspector (`/#/runs/…`)", url: `${server.url}/#/runs/${threadId}/${runId}`, row: '[data-testid="timeline"] tr[data-source="journal"]' },
      { label: "static HTML, same journal and checkpoints", url: page.url, row: 'tr[data-source="journal"]' },
    ];
    const samples = new Map(targets.map((t) => [t, [] as Array<{ ms: number; bytes: number; byPath: Map<string, number> }>]));
    const load = async (target: (typeof targets)[number]) => {
      const context = await browser.newContext();
      const tab = await context.newPage();
      let bytes = 0;
      const byPath = new Map<string, number>();
      const bodies: Array<Promise<void>> = [];
      let visible = false;
      // Responses whose headers came before the text was visible (a body still arriving then counts whole).
      tab.on("response", (response) => void (visible || bodies.push(response.body().then((b) => {
        bytes += b.length;
        const path = new URL(response.url()).pathname.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, ":id");
        byPath.set(path, (byPath.get(path) ?? 0) + b.length);
      }, () => undefined))));
      const started = performance.now();
      await tab.goto(target.url, { waitUntil: "commit" });
      await tab.locator(target.row, { hasText: firstText }).first().waitFor({ state: "visible", timeout: 120_000 });
      const ms = performance.now() - started;
      visible = true;
      await Promise.all(bodies);
      await context.close();
      return { ms, bytes, byPath };
    };
    for (const target of targets) await load(target); // warm-up (the server's and the browser's first load), not counted
    for (let round = 0; round < ROUNDS; round++) for (const target of targets) samples.get(target)!.push(await load(target));

    const [inspector, baseline] = targets.map((t) => ({ ms: median(samples.get(t)!.map((s) => s.ms)), bytes: median(samples.get(t)!.map((s) => s.bytes)) }));
    const lines = [
      `run page: a recorded run of ${modelCalls} model turns, ${SUBAGENTS} subagents, ${journal.length} journal entries, ${history.length} checkpoints (recorded in ${recordSeconds.toFixed(0)} s); time until the first journal entry's text ("${firstText}") is visible, fresh browser context per load, medians of ${ROUNDS} interleaved rounds`,
      "| page | ms to first journal entry | × static | transferred until then |",
      "|---|---|---|---|",
      `| ${targets[0]!.label} | ${inspector!.ms.toFixed(0)} | ${(inspector!.ms / baseline!.ms).toFixed(2)} (goal ≤ 2) | ${kib(inspector!.bytes)} |`,
      `| ${targets[1]!.label} | ${baseline!.ms.toFixed(0)} | 1.00 | ${kib(baseline!.bytes)} |`,
    ];
    // Where the run page's bytes go (its last measured load): the three largest answers.
    const largest = [...samples.get(targets[0]!)!.at(-1)!.byPath].sort((a, b) => b[1] - a[1]).slice(0, 3);
    lines.push(`run page's largest transfers: ${largest.map(([path, n]) => `${path} ${kib(n)}`).join(", ")}`);
    return lines;
  } finally {
    await browser.close();
    await new Promise<void>((resolve) => (staticServer ? staticServer.close(() => resolve()) : resolve()));
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
