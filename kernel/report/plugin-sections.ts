/**
 * The run report's plugin sections (`receipts`, `delegations`, `workspace.files`): the
 * kernel knows none of the channels behind them. Each plugin of the agent's stack that
 * has a `report` hook contributes its part, in composed order.
 */
import type { Composition } from "../compose/types.js";
import type { ReportContribution } from "../plugin/types.js";

type Entry = Record<string, unknown>;
type Files = Record<string, { bytes: number; sha256: string }>;

export interface PluginSections {
  receipts: Entry[];
  delegations: Entry[];
  workspaceFiles: Files;
}

/**
 * @example
 * pluginSections(composition, { agent: "lead", threadId, values: result.values })
 * // → { receipts: [...], delegations: [...], workspaceFiles: { "notes.md": { bytes, sha256 } } }
 */
export function pluginSections(composition: Composition, context: { agent: string; threadId: string; values: Readonly<Record<string, unknown>> }): PluginSections {
  const out: PluginSections = { receipts: [], delegations: [], workspaceFiles: {} };
  for (const name of composition.order) {
    const member = composition.plugins.get(name)!;
    const contribution: ReportContribution | undefined = member.plugin.report?.({ ...context, config: member.config });
    if (!contribution) continue;
    for (const entry of contribution.receipts ?? []) out.receipts.push({ ...entry });
    for (const entry of contribution.delegations ?? []) out.delegations.push({ ...entry });
    Object.assign(out.workspaceFiles, contribution.workspaceFiles ?? {});
  }
  return out;
}
