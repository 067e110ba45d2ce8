import { project as projectRunReport, upgrade as upgradeRunReport } from "./run-report/migrate.js";
import { project as projectStatus, upgrade as upgradeStatus } from "./status/migrate.js";

/**
 * One step between major versions of a contract: `upgrade` reads a `from` payload as
 * `to`; `project` gives the `from` view of a `to` payload, where old consumers still exist.
 * Neither validates; `upgrade`/`project` in `upgrade.ts` validate both ends.
 */
export interface Migration {
  contract: string;
  from: number;
  to: number;
  upgrade(payload: unknown): unknown;
  project?(payload: unknown): unknown;
}

/** Every registered migration; `keel contracts check` requires one for each new major version. */
export const MIGRATIONS: readonly Migration[] = Object.freeze([
  { contract: "status", from: 1, to: 2, upgrade: upgradeStatus, project: projectStatus },
  { contract: "run-report", from: 1, to: 2, upgrade: upgradeRunReport, project: projectRunReport },
]);
