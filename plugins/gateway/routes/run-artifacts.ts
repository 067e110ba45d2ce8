import { notFound } from "../http-errors.js";
import { DEFAULT_REPORT_VERSION, toReportVersion } from "../../../kernel/report/run-report.js";
import { ReportQuery, RunParams } from "../schemas.js";
import { authorizedRun, type GatewayApp, type GatewayContext } from "../context.js";

/**
 * A finished run's report — run-report@2 by default, run-report@1 with `?version=1` (the
 * stored report converted either way) — and any run's journal entries (journal-entry@1,
 * oldest first).
 */
export function registerRunArtifactRoutes(app: GatewayApp, ctx: GatewayContext): void {
  const { store } = ctx.deps;

  app.get("/threads/:tid/runs/:rid/report", { schema: { params: RunParams, querystring: ReportQuery } }, async (request) => {
    const run = await authorizedRun(ctx, request, "read", request.params.tid, request.params.rid);
    const report = await store.getReport(run.runId);
    if (report === null) throw notFound(`report of run \`${run.runId}\` (it is saved when the run ends; status: ${run.status})`);
    const version = request.query.version === undefined ? DEFAULT_REPORT_VERSION : request.query.version === "1" ? 1 : 2;
    return toReportVersion(report, version);
  });

  app.get("/threads/:tid/runs/:rid/journal", { schema: { params: RunParams } }, async (request) => {
    const run = await authorizedRun(ctx, request, "read", request.params.tid, request.params.rid);
    return store.readJournal(run.runId);
  });
}
