import type { Member } from "./checks.js";
import type { ChannelAccess } from "./types.js";

/** The request and response a wrap hook is handed (and so reads), as pseudo-channels. */
export const WRAP_PSEUDO_CHANNELS = {
  wrapModelCall: ["model.request", "model.response"],
  wrapToolCall: ["tool.request", "tool.response"],
} as const;

/**
 * Every wrap hook reads the request it is given and the response `next` returns, whether
 * its manifest says so or not: those reads take part in the race check like declared ones
 * (a hook that rewrites the tool response and one that reads it, unordered, race).
 * Rows a manifest already declares are not repeated.
 */
export function implicitWrapAccess(members: readonly Member[], declared: readonly ChannelAccess[]): ChannelAccess[] {
  const have = new Set<string>();
  for (const row of declared) if (row.hook === "wrapModelCall" || row.hook === "wrapToolCall") have.add(`${row.plugin}\u0000${row.hook}\u0000${row.channel}`);
  const out: ChannelAccess[] = [];
  for (const member of members) {
    for (const hook of ["wrapModelCall", "wrapToolCall"] as const) {
      if (member.manifest.hooks[hook] === undefined) continue;
      for (const channel of WRAP_PSEUDO_CHANNELS[hook]) {
        if (have.has(`${member.name}\u0000${hook}\u0000${channel}`)) continue;
        out.push({ plugin: member.name, hook, channel, mode: "read", optional: false });
      }
    }
  }
  return out;
}
