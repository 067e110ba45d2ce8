import semver from "semver";
import type { CompositionProblem } from "../errors.js";
import type { Manifest, Plugin } from "../plugin/types.js";
import { validateManifest } from "../plugin/validate-manifest.js";
import { tick } from "./messages.js";
import type { Candidate } from "./resolve-plugins.js";

/** A plugin that passed the manifest check and takes part in the later steps. */
export interface Member {
  /** Position among members: the node id in the ordering graph (listing order). */
  readonly id: number;
  readonly name: string;
  readonly plugin: Plugin;
  readonly manifest: Manifest;
  readonly entryConfig: unknown;
}

export interface MemberCheck {
  readonly members: Member[];
  /**
   * Every name listed in the stack, valid or not: a dependency on a plugin whose manifest is
   * invalid is already reported once as that manifest's problem, not again as missing.
   */
  readonly listed: ReadonlySet<string>;
}

/**
 * Step 1: manifests (shape, hooks declared = implemented), duplicate names and kernel ranges.
 * Plugins with an invalid manifest, and second copies of a name, are left out of later steps.
 */
export function checkMembers(candidates: readonly Candidate[], kernelVersion: string, problems: CompositionProblem[]): MemberCheck {
  const members: Member[] = [];
  const listed = new Set<string>();
  const firstIndex = new Map<string, number>();
  const rangeCache = new Map<string, boolean>();

  for (const candidate of candidates) {
    const label = candidate.name === undefined ? `the plugin at \`/plugins/${candidate.index}\`` : tick(candidate.name);
    let manifestValid = true;
    let found;
    try {
      found = validateManifest(candidate.plugin);
    } catch (error) {
      found = [{ code: "KEEL_ERR_MANIFEST_INVALID" as const, message: `manifest of ${label} could not be read: ${(error as Error).message}`, pointer: "", fix: "export `{ manifest, hooks }`" }];
    }
    for (const p of found) {
      if (p.code === "KEEL_ERR_MANIFEST_INVALID") manifestValid = false;
      problems.push({
        code: p.code,
        message: p.fix === undefined ? p.message : `${p.message}; ${p.fix}`,
        plugins: candidate.name === undefined ? [] : [candidate.name],
        ...(p.pointer === undefined ? {} : { pointer: p.pointer }),
        ...(p.fix === undefined ? {} : { fix: p.fix }),
      });
    }

    const name = candidate.name;
    if (name === undefined) continue;
    listed.add(name);
    const first = firstIndex.get(name);
    if (first !== undefined) {
      problems.push({
        code: "KEEL_ERR_COMPOSE_DUPLICATE",
        message: `${tick(name)} is listed twice in the stack (\`/plugins/${first}\` and \`/plugins/${candidate.index}\`); plugin names must be unique within a stack: keep one of them`,
        plugins: [name],
        pointer: `/plugins/${candidate.index}`,
        fix: `remove one ${tick(name)} entry`,
      });
      continue;
    }
    firstIndex.set(name, candidate.index);
    if (!manifestValid) continue;

    const manifest = candidate.plugin.manifest;
    let supported = rangeCache.get(manifest.kernel);
    if (supported === undefined) {
      supported = semver.validRange(manifest.kernel) !== null && semver.satisfies(kernelVersion, manifest.kernel, { includePrerelease: true });
      rangeCache.set(manifest.kernel, supported);
    }
    if (!supported && semver.validRange(manifest.kernel) !== null) {
      problems.push({
        code: "KEEL_ERR_COMPOSE_KERNEL_RANGE",
        message: `${tick(name)} supports kernel ${tick(manifest.kernel)} (manifest \`kernel\`), but this kernel is ${tick(kernelVersion)}; upgrade the plugin, or widen its \`kernel\` range if it really supports ${tick(kernelVersion)}`,
        plugins: [name],
        pointer: "/kernel",
        fix: `use a version of ${tick(name)} whose \`kernel\` range includes ${kernelVersion}`,
      });
    }
    members.push({ id: members.length, name, plugin: candidate.plugin, manifest, entryConfig: candidate.entryConfig });
  }
  return { members, listed };
}
