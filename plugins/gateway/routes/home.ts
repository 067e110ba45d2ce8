import type { RunRecord } from "../../../kernel/runs/types.js";
import type { GatewayApp, GatewayContext } from "../context.js";

const THREADS_SHOWN = 20;
const RUNS_PER_THREAD = 5;

/**
 * `GET /`: a short page listing the user's recent runs, with links to their JSON, report
 * and journal. (The full run inspector is later work.)
 */
export function registerHomeRoute(app: GatewayApp, ctx: GatewayContext): void {
  app.get("/", async (request, reply) => {
    const { matches } = await ctx.authorize(request, "threads", "search", { metadata: {}, limit: THREADS_SHOWN, offset: 0 });
    const threads = (await ctx.deps.store.searchThreads({ owner: request.user, limit: THREADS_SHOWN, offset: 0 })).filter((thread) => matches(thread.metadata));
    const runs: RunRecord[] = [];
    for (const thread of threads) runs.push(...(await ctx.deps.store.listRuns(thread.threadId, { limit: RUNS_PER_THREAD, offset: 0 })));
    runs.sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0));
    return reply.type("text/html; charset=utf-8").send(renderHome(ctx, runs));
  });
}

export function renderHome(ctx: Pick<GatewayContext, "version" | "stacks">, runs: readonly RunRecord[]): string {
  const rows = runs
    .map((run) => {
      const base = `/threads/${encodeURIComponent(run.threadId)}/runs/${encodeURIComponent(run.runId)}`;
      const outcome = run.outcome ? `${run.outcome.status}${run.outcome.primaryStopReason ? ` (${run.outcome.primaryStopReason})` : ""}` : "";
      return `<tr><td>${escapeHtml(run.createdAt)}</td><td>${escapeHtml(run.threadId)}</td><td><a href="${escapeHtml(base)}">${escapeHtml(run.runId)}</a></td><td>${escapeHtml(run.assistantId)}</td><td>${escapeHtml(run.status)}</td><td>${escapeHtml(outcome)}</td><td><a href="${escapeHtml(base)}/report">report</a> · <a href="${escapeHtml(base)}/journal">journal</a></td></tr>`;
    })
    .join("\n");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Keel</title>
<style>body{font:14px system-ui,sans-serif;margin:2rem}table{border-collapse:collapse}td,th{padding:.25rem .6rem;border-bottom:1px solid #ddd;text-align:left}code{background:#f4f4f4;padding:0 .2rem}</style>
</head><body>
<h1>Keel ${escapeHtml(ctx.version)}</h1>
<p>Assistants (stacks): ${ctx.stacks.map((s) => `<code>${escapeHtml(s)}</code>`).join(", ")}. API: LangGraph Platform thread/run routes; use <code>@langchain/langgraph-sdk</code>'s <code>Client</code>.</p>
<h2>Recent runs</h2>
${runs.length === 0 ? "<p>No runs yet.</p>" : `<table><thead><tr><th>created</th><th>thread</th><th>run</th><th>assistant</th><th>status</th><th>outcome</th><th></th></tr></thead><tbody>\n${rows}\n</tbody></table>`}
</body></html>
`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}
