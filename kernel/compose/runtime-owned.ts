/**
 * Runtime-owned channels: a plugin marks a channel `runtimeOwned` in its manifest when
 * only the runtime and its plugins may write it (evidence such as receipts, the
 * delegation ledger, the bash runs). The kernel knows them only from the composition:
 * request hygiene strips them from a run request, and a state write from outside a
 * run must refuse them.
 */
import type { ResolvedChannel } from "./types.js";

/** What these helpers read of a composition. */
export interface ChannelSource {
  readonly channels: ReadonlyMap<string, ResolvedChannel>;
}

/**
 * The composition's runtime-owned channels, in declaration order.
 *
 * @example
 * runtimeOwnedChannels(compose(stack, { plugins })) // e.g. the channels of an evidence plugin
 */
export function runtimeOwnedChannels(composition: ChannelSource): string[] {
  return [...composition.channels.values()].filter((channel) => channel.runtimeOwned === true).map((channel) => channel.name);
}

/**
 * The keys a caller may not set in a run request, over every composition a host serves:
 * each runtime-owned channel, the entry fields it declares runtime-owned
 * (`runtimeOwnedFields`), and the snake_case spelling of each. Sorted, no duplicates.
 *
 * @example
 * runtimeOwnedKeys([lead, subagent]) // e.g. ["bashRuns", "bash_runs", …]
 */
export function runtimeOwnedKeys(compositions: Iterable<ChannelSource>): string[] {
  const keys = new Set<string>();
  for (const composition of compositions) {
    for (const channel of composition.channels.values()) {
      if (channel.runtimeOwned !== true) continue;
      for (const key of [channel.name, ...(channel.runtimeOwnedFields ?? [])]) {
        keys.add(key);
        keys.add(snakeCase(key));
      }
    }
  }
  return [...keys].sort();
}

/** `receiptVerdict` → `receipt_verdict`: the spelling a Python client would use. */
function snakeCase(key: string): string {
  return key.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase();
}
