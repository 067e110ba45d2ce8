import { notFound } from "../http-errors.js";
import { RunParams } from "../schemas.js";
import { ownedRun, type GatewayApp, type GatewayContext } from "../context.js";

/** A finished run's run-report@1, and any run's journal entries (journal-entry@1, oldest first). */
export function registerRunArtifactRoutes(app: GatewayApp, ctx: GatewayContext): void {
  const { store } = ctx.deps;

  app.get("/threads/:tid/runs/:rid/report", { schema: { params: RunParams } }, async (request) => {
    const run = await ownedRun(ctx, request.params.tid, request.params.rid, request.user);
    const report = await store.getReport(run.runId);
    if (report === null) throw notFound(`report of run \`${run.runId}\` (it is saved when the run ends; status: ${run.status})`);
    return report;
  });

  app.get("/threads/:tid/runs/:rid/journal", { schema: { params: RunParams } }, async (request) => {
    const run = await ownedRun(ctx, request.params.tid, request.params.rid, request.user);
    return store.readJournal(run.runId);
  });
}
