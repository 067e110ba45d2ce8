import type { Reference } from "../../contracts/manifest/v1.js";
import { HOOK_NAMES } from "../../contracts/shared.js";
import { KERNEL_CHANNELS } from "../channels/kernel-channels.js";
import { isCommutativeReducer } from "../channels/reducers.js";
import type { CompositionProblem } from "../errors.js";
import type { HookName } from "../plugin/types.js";
import type { Member } from "./checks.js";
import { listNames, tick } from "./messages.js";
import type { AccessMode, ChannelAccess, ResolvedChannel } from "./types.js";

/** Writes to commutative reducers never race; `isCommutativeReducer` is the one definition. */
const isCommutative = isCommutativeReducer;

function refName(ref: Reference): string {
  return typeof ref === "string" ? ref : ref.name;
}

function refOptional(ref: Reference): boolean {
  return typeof ref !== "string" && ref.optional === true;
}

export interface ChannelResolution {
  readonly channels: Map<string, ResolvedChannel>;
  /** Access rows of every member, per declared hook (optional accesses to absent channels dropped). */
  readonly access: ChannelAccess[];
}

/** Each channel has exactly one owner: the kernel or one plugin. The first claimant keeps it. */
function resolveOwners(members: readonly Member[], problems: CompositionProblem[]): Map<string, ResolvedChannel> {
  const channels = new Map<string, ResolvedChannel>();
  for (const spec of KERNEL_CHANNELS) {
    channels.set(spec.name, {
      name: spec.name,
      owner: "kernel",
      reducer: spec.reducer,
      schema: spec.schema,
      description: spec.description,
      ...(spec.readOnly ? { readOnly: true } : {}),
      commutative: isCommutative(spec.reducer),
    });
  }
  const claimants = new Map<string, string[]>();
  for (const member of members) {
    for (const [name, declaration] of Object.entries(member.manifest.channels ?? {})) {
      const existing = channels.get(name);
      if (existing !== undefined) {
        const list = claimants.get(name) ?? [existing.owner];
        list.push(member.name);
        claimants.set(name, list);
        continue;
      }
      channels.set(name, { ...declaration, name, owner: member.name, commutative: isCommutative(declaration.reducer) });
    }
  }
  for (const [channel, owners] of claimants) {
    const plugins = owners.filter((o) => o !== "kernel");
    const message =
      owners[0] === "kernel"
        ? `${listNames(plugins)} declare${plugins.length === 1 ? "s" : ""} channel ${tick(channel)} in manifest \`channels\`, but the kernel owns it; each channel has exactly one owner: remove the declaration and observe or mutate ${tick(channel)} instead`
        : `${listNames(plugins)} ${plugins.length === 2 ? "both" : "all"} declare channel ${tick(channel)} in manifest \`channels\`; each channel has exactly one owner: keep the declaration in one plugin, the others observe or mutate it`;
    problems.push({ code: "KEEL_ERR_COMPOSE_CHANNEL_OWNER", message, plugins, channel, fix: `declare ${tick(channel)} in one place only` });
  }
  return channels;
}

/**
 * Step 2: channel owners, the existence of every observed or mutated channel, and the access
 * table. `hooks.<hook>.observes|mutates` replaces the plugin-level list for that hook.
 */
export function resolveChannels(members: readonly Member[], problems: CompositionProblem[]): ChannelResolution {
  const channels = resolveOwners(members, problems);
  const access: ChannelAccess[] = [];

  for (const member of members) {
    const { manifest } = member;
    const reported = new Set<string>();
    const checkExists = (ref: Reference, where: string, verb: "observes" | "mutates"): boolean => {
      const channel = refName(ref);
      const resolved = channels.get(channel);
      if (resolved === undefined) {
        if (!refOptional(ref) && !reported.has(`?${channel}`)) {
          reported.add(`?${channel}`);
          problems.push({
            code: "KEEL_ERR_COMPOSE_UNKNOWN_CHANNEL",
            message: `${tick(member.name)} ${verb} channel ${tick(channel)} (manifest \`${where}\`), but neither the kernel nor any plugin in the stack owns it; add the plugin that owns ${tick(channel)}, fix the name, or declare it \`{ "name": "${channel}", "optional": true }\``,
            plugins: [member.name],
            channel,
            fix: `add the owner of ${tick(channel)} to the stack or make the access optional`,
          });
        }
        return false;
      }
      if (verb === "mutates" && resolved.readOnly) {
        if (!reported.has(`!${channel}`)) {
          reported.add(`!${channel}`);
          problems.push({
            code: "KEEL_ERR_COMPOSE_CHANNEL_OWNER",
            message: `${tick(member.name)} mutates channel ${tick(channel)} (manifest \`${where}\`), but ${resolved.owner === "kernel" ? "the kernel" : tick(resolved.owner)} owns it read-only; remove ${tick(channel)} from \`mutates\` (observe it instead)`,
            plugins: [member.name],
            channel,
            fix: `observe ${tick(channel)} instead of mutating it`,
          });
        }
        return false;
      }
      return true;
    };

    // Plugin-level lists are checked even when every hook overrides them (or there are no hooks).
    for (const ref of manifest.observes ?? []) checkExists(ref, "observes", "observes");
    for (const ref of manifest.mutates ?? []) checkExists(ref, "mutates", "mutates");

    for (const hook of HOOK_NAMES) {
      const declaration = manifest.hooks[hook];
      if (declaration === undefined) continue;
      const lists: Array<[AccessMode, "observes" | "mutates", readonly Reference[], string]> = [
        ["read", "observes", declaration.observes ?? manifest.observes ?? [], declaration.observes ? `hooks.${hook}.observes` : "observes"],
        ["write", "mutates", declaration.mutates ?? manifest.mutates ?? [], declaration.mutates ? `hooks.${hook}.mutates` : "mutates"],
      ];
      const seen = new Set<string>();
      for (const [mode, verb, refs, where] of lists) {
        for (const ref of refs) {
          const channel = refName(ref);
          const ok = where.startsWith("hooks.") ? checkExists(ref, where, verb) : channels.has(channel) && !(mode === "write" && channels.get(channel)!.readOnly);
          if (!ok || seen.has(`${mode}:${channel}`)) continue;
          seen.add(`${mode}:${channel}`);
          access.push({ plugin: member.name, hook: hook as HookName, channel, mode, optional: refOptional(ref) });
        }
      }
    }
  }
  return { channels, access };
}
