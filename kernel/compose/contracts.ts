import semver from "semver";
import { KERNEL_PRODUCES } from "../channels/kernel-channels.js";
import type { CompositionProblem } from "../errors.js";
import type { Member } from "./checks.js";
import { tick } from "./messages.js";

interface Producer {
  readonly by: string;
  readonly version: string;
}

function splitRef(ref: string): [string, string] {
  const at = ref.indexOf("@");
  return at < 0 ? [ref, ""] : [ref.slice(0, at), ref.slice(at + 1)];
}

/** `receipt@1` produces 1.0.0; a full semver is taken as is. */
function producedVersion(raw: string): string | null {
  if (/^\d+$/.test(raw)) return `${raw}.0.0`;
  return semver.valid(raw) ?? semver.coerce(raw)?.version ?? null;
}

/**
 * Step 3: every consumed contract range is met by a producer in the stack or the kernel, and
 * every required port is provided by exactly one plugin (two providers of a port conflict).
 */
export function checkContractsAndPorts(members: readonly Member[], problems: CompositionProblem[]): void {
  const producers = new Map<string, Producer[]>();
  const addProducer = (ref: string, by: string): void => {
    const [name, raw] = splitRef(ref);
    const version = producedVersion(raw);
    if (version === null) return;
    const list = producers.get(name) ?? [];
    list.push({ by, version });
    producers.set(name, list);
  };
  for (const ref of KERNEL_PRODUCES) addProducer(ref, "kernel");
  for (const member of members) for (const ref of member.manifest.contracts?.produces ?? []) addProducer(ref, member.name);

  const providers = new Map<string, string[]>();
  for (const member of members) for (const port of member.manifest.provides ?? []) providers.set(port, [...(providers.get(port) ?? []), member.name]);
  const ports = new Set(providers.keys());
  for (const [port, by] of providers) {
    if (by.length < 2) continue;
    problems.push({
      code: "KEEL_ERR_COMPOSE_PORT_CONFLICT",
      message: `port ${tick(port)} is provided by ${by.map(tick).join(" and ")}; a port has one provider, so which one serves it would be a guess — keep one of them in the stack`,
      plugins: by,
      fix: `remove all but one provider of ${tick(port)}`,
    });
  }

  for (const member of members) {
    for (const ref of member.manifest.contracts?.consumes ?? []) {
      const [name, range] = splitRef(ref);
      const available = producers.get(name) ?? [];
      const validRange = semver.validRange(range) !== null;
      if (validRange && available.some((p) => semver.satisfies(p.version, range, { includePrerelease: true }))) continue;
      const offered = available.length === 0 ? "no plugin in the stack (nor the kernel) produces it" : `the stack produces only ${available.map((p) => `${tick(`${name}@${semver.major(p.version)}`)} (${p.by === "kernel" ? "kernel" : tick(p.by)})`).join(", ")}`;
      problems.push({
        code: "KEEL_ERR_COMPOSE_CONTRACT",
        message: validRange
          ? `${tick(member.name)} consumes ${tick(ref)} (manifest \`contracts.consumes\`), but ${offered}; add a plugin that produces a matching version of ${tick(name)}, or widen the consumed range`
          : `${tick(member.name)} consumes ${tick(ref)} (manifest \`contracts.consumes\`), but ${tick(range)} is not a semver range; write it as \`${name}@^1\``,
        plugins: [member.name],
        fix: validRange ? `add a producer of ${tick(ref)} to the stack` : `fix the range of ${tick(ref)}`,
      });
    }
    for (const port of member.manifest.requires ?? []) {
      if (ports.has(port)) continue;
      problems.push({
        code: "KEEL_ERR_COMPOSE_MISSING_PORT",
        message: `${tick(member.name)} requires port ${tick(port)} (manifest \`requires\`), but no plugin in the stack provides it; add a service plugin whose manifest \`provides\` ${tick(port)}`,
        plugins: [member.name],
        fix: `add a plugin that provides ${tick(port)}`,
      });
    }
  }
}
