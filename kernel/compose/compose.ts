import { CompositionError, type CompositionProblem } from "../errors.js";
import { KERNEL_VERSION } from "../version.js";
import { resolveChannels } from "./channels.js";
import { applyChannelOptions } from "./channel-options.js";
import { checkMembers } from "./checks.js";
import { Reachability } from "./closure.js";
import { resolveConfigs } from "./config.js";
import { checkContractsAndPorts } from "./contracts.js";
import { buildComposition } from "./build-composition.js";
import { buildOrderingGraph } from "./graph.js";
import { addPlacementEdges } from "./placements.js";
import { implicitWrapAccess } from "./implicit-access.js";
import { checkRaces } from "./races.js";
import { resolveStackEntries } from "./resolve-plugins.js";
import { reportCycles, sortStable } from "./toposort.js";
import type { ComposeOptions, Composition, StackInput } from "./types.js";

/**
 * Compose a stack into a frozen, race-free Composition. Every step runs and
 * every problem is collected; if there is any, one `CompositionError` carries them all.
 *
 * @example
 * const composition = compose(
 *   { name: "mine", plugins: ["loop-detection", { name: "token-budget", config: { limit: 50000 } }], order: [["loop-detection", "token-budget"]] },
 *   { plugins: builtins },
 * );
 * composition.order;              // ["loop-detection", "token-budget"]
 * composition.hooks.afterModel;   // reversed: ["token-budget", "loop-detection"]
 */
export function compose(stack: StackInput, options: ComposeOptions = {}): Composition {
  const problems: CompositionProblem[] = [];

  const candidates = resolveStackEntries(stack, options, problems);
  const { members, listed } = checkMembers(candidates, options.kernelVersion ?? KERNEL_VERSION, problems);
  const { channels, access } = resolveChannels(members, problems);
  checkContractsAndPorts(members, problems);

  const graph = buildOrderingGraph(members, listed, stack?.order, problems);
  addPlacementEdges(members, graph, problems);
  const sorted = sortStable(graph);
  reportCycles(graph, sorted.cycles, problems);

  const reach = new Reachability(graph, sorted.order);
  checkRaces([...access, ...implicitWrapAccess(members, access)], channels, graph, reach, sorted.order, problems);

  const configs = resolveConfigs(members, listed, options.config ?? [], problems);

  if (problems.length > 0) throw new CompositionError(problems);
  applyChannelOptions(channels, configs);
  return buildComposition({ stack, ordered: sorted.order.map((id) => members[id]!), configs, channels, access, edges: graph.edges });
}
