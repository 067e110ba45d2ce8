import type { ResolvedChannel } from "./types.js";

/**
 * A bounded `append` channel whose reducer names `keepNewestOption` takes its bound from that
 * option of the owning plugin (after defaults and every config layer): the bound is manifest
 * data, the option lets a stack or a run choose it. A missing or non-integer option keeps the
 * manifest's `keepNewest`.
 *
 * @example
 * // receipts: reducer { kind: "append", keepNewest: 100, keepNewestOption: "keepInState" }
 * applyChannelOptions(channels, new Map([["receipts", { keepInState: 20 }]])); // keeps the newest 20
 */
export function applyChannelOptions(channels: Map<string, ResolvedChannel>, configs: ReadonlyMap<string, Readonly<Record<string, unknown>>>): void {
  for (const [name, channel] of channels) {
    const reducer = channel.reducer;
    if (typeof reducer !== "object" || reducer.kind !== "append" || reducer.keepNewestOption === undefined) continue;
    const value = configs.get(channel.owner)?.[reducer.keepNewestOption];
    if (typeof value !== "number" || !Number.isInteger(value) || value < 1) continue;
    channels.set(name, { ...channel, reducer: { ...reducer, keepNewest: value } });
  }
}
