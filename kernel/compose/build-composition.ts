import { HOOK_NAMES } from "../../contracts/shared.js";
import type { HookName } from "../plugin/types.js";
import type { Member } from "./checks.js";
import { cloneData } from "./config.js";
import { deepFreeze, FrozenMap } from "./frozen.js";
import type { ChannelAccess, Composition, Explanation, OrderingEdge, ResolvedChannel, ResolvedPlugin, StackInput } from "./types.js";

/** before* run in composed order, after* in reverse, wrap* outermost (first) first. */
const REVERSED: Readonly<Record<HookName, boolean>> = {
  beforeAgent: false,
  beforeModel: false,
  wrapModelCall: false,
  afterModel: true,
  wrapToolCall: false,
  afterAgent: true,
};

export function hookChains(order: readonly Member[]): Record<HookName, string[]> {
  const chains = {} as Record<HookName, string[]>;
  for (const hook of HOOK_NAMES) {
    const chain = order.filter((m) => m.manifest.hooks[hook] !== undefined).map((m) => m.name);
    chains[hook] = REVERSED[hook] ? chain.reverse() : chain;
  }
  return chains;
}

export interface CompositionParts {
  readonly stack: StackInput;
  /** Members in composed order. */
  readonly ordered: readonly Member[];
  readonly configs: ReadonlyMap<string, Record<string, unknown>>;
  readonly channels: ReadonlyMap<string, ResolvedChannel>;
  readonly access: readonly ChannelAccess[];
  readonly edges: readonly OrderingEdge[];
}

/** Assemble the frozen Composition; `explain()` hands out fresh copies callers may keep. */
export function buildComposition(parts: CompositionParts): Composition {
  const order = parts.ordered.map((m) => m.name);
  const position = new Map(order.map((name, i) => [name, i] as const));
  const hookIndex = new Map(HOOK_NAMES.map((h, i) => [h, i] as const));
  // The access table reads in composed order, then hook, then reads before writes.
  const access = parts.access
    .map((row, i) => ({ row, i, plugin: position.get(row.plugin)!, hook: hookIndex.get(row.hook)! }))
    .sort((x, y) => x.plugin - y.plugin || x.hook - y.hook || x.i - y.i)
    .map(({ row }) => Object.freeze({ ...row }));
  const hooks = hookChains(parts.ordered);
  const plugins = new FrozenMap<string, ResolvedPlugin>(
    parts.ordered.map((m) => [m.name, Object.freeze({ plugin: m.plugin, name: m.name, config: deepFreeze(parts.configs.get(m.name) ?? {}) })]),
  );
  const channels = new FrozenMap<string, ResolvedChannel>(
    [...parts.channels].map(([name, channel]) => [name, deepFreeze({ ...channel, schema: cloneData(channel.schema) })]),
  );
  const edges = parts.edges.map((e) => Object.freeze({ ...e }));

  const composition: Composition = {
    stackName: parts.stack.name,
    order: Object.freeze(order),
    plugins,
    hooks: deepFreeze(hooks),
    channels,
    access: Object.freeze(access),
    edges: Object.freeze(edges),
    ...(parts.stack.subagentStack === undefined ? {} : { subagentStack: deepFreeze(cloneData(parts.stack.subagentStack)) }),
    explain(): Explanation {
      return {
        order: [...order],
        hooks: Object.fromEntries(HOOK_NAMES.map((h) => [h, [...hooks[h]]])) as Record<HookName, string[]>,
        edges: edges.map((e) => ({ ...e })),
        channels: access.map((row) => ({ ...row })),
      };
    },
  };
  return Object.freeze(composition);
}
