import semver from "semver";
import { validateAgainst } from "../../contracts/ajv.js";
import { ManifestV1 } from "../../contracts/manifest/v1.js";
import { HOOK_NAMES } from "../../contracts/shared.js";
import type { KeelErrorCode } from "../errors.js";
import type { Plugin } from "./types.js";

export interface ManifestProblem {
  code: KeelErrorCode;
  message: string;
  pointer?: string;
  fix?: string;
}

/**
 * Audit a plugin's manifest: manifest@1 shape (each problem names its field), a valid
 * `kernel` semver range, a compilable config schema, and hooks declared = implemented.
 */
export function validateManifest(plugin: Plugin): ManifestProblem[] {
  const manifest = plugin.manifest as unknown;
  const label = typeof (manifest as { name?: unknown })?.name === "string" ? `\`${(manifest as { name: string }).name}\`` : "a plugin";
  const result = validateAgainst(ManifestV1, manifest);
  const problems: ManifestProblem[] = result.errors.map((e) => ({
    code: "KEEL_ERR_MANIFEST_INVALID",
    message: `manifest of ${label} is invalid at \`${e.pointer || "/"}\`: ${e.message}`,
    pointer: e.pointer,
    fix: "fix the field named by the pointer (manifest@1, schemas/manifest.v1.schema.json)",
  }));
  if (!result.valid) return problems;

  const m = plugin.manifest;
  if (semver.validRange(m.kernel) === null) {
    problems.push({
      code: "KEEL_ERR_MANIFEST_INVALID",
      message: `manifest of ${label} is invalid at \`/kernel\`: \`${m.kernel}\` is not a semver range`,
      pointer: "/kernel",
      fix: 'use a range such as ">=0.1.0 <1"',
    });
  }
  const declared = new Set(Object.keys(m.hooks));
  for (const hook of HOOK_NAMES) {
    const implemented = typeof plugin.hooks[hook] === "function";
    if (implemented && !declared.has(hook)) {
      problems.push({
        code: "KEEL_ERR_MANIFEST_HOOKS",
        message: `${label} implements \`${hook}\` but its manifest does not declare it`,
        pointer: `/hooks/${hook}`,
        fix: `add \`${hook}: {}\` to manifest.hooks (with its observes/mutates)`,
      });
    }
    if (declared.has(hook) && !implemented) {
      problems.push({
        code: "KEEL_ERR_MANIFEST_HOOKS",
        message: `${label} declares \`${hook}\` in its manifest but supplies no \`${hook}\` function`,
        pointer: `/hooks/${hook}`,
        fix: `implement hooks.${hook} or remove it from manifest.hooks`,
      });
    }
  }
  for (const key of Object.keys(plugin.hooks)) {
    if (!(HOOK_NAMES as readonly string[]).includes(key)) {
      problems.push({
        code: "KEEL_ERR_MANIFEST_HOOKS",
        message: `${label} supplies an unknown hook \`${key}\`; hooks are ${HOOK_NAMES.join(", ")}`,
        pointer: `/hooks/${key}`,
        fix: "rename it to one of the six hooks",
      });
    }
  }
  for (const port of Object.keys(plugin.services ?? {})) {
    if (!(m.provides ?? []).includes(port)) {
      problems.push({
        code: "KEEL_ERR_MANIFEST_INVALID",
        message: `${label} supplies the port \`${port}\` but its manifest does not list it in \`provides\``,
        pointer: "/provides",
        fix: `add "${port}" to manifest.provides`,
      });
    }
  }
  if (plugin.report !== undefined && typeof plugin.report !== "function") {
    problems.push({
      code: "KEEL_ERR_MANIFEST_HOOKS",
      message: `${label} supplies a \`report\` that is not a function`,
      pointer: "/report",
      fix: "make `report` a function `(ctx) => ({ receipts?, delegations?, workspaceFiles? })`, or remove it",
    });
  }
  for (const [channel, declaration] of Object.entries(m.channels ?? {})) {
    if (declaration.runtimeOwnedFields !== undefined && declaration.runtimeOwned !== true) {
      problems.push({
        code: "KEEL_ERR_MANIFEST_INVALID",
        message: `manifest of ${label} is invalid at \`/channels/${channel}/runtimeOwnedFields\`: only a \`runtimeOwned\` channel has runtime-owned fields`,
        pointer: `/channels/${channel}/runtimeOwnedFields`,
        fix: "add `runtimeOwned: true` to the channel, or drop `runtimeOwnedFields`",
      });
    }
  }
  if (m.config !== undefined) {
    try {
      validateAgainst(m.config, {});
    } catch (error) {
      problems.push({
        code: "KEEL_ERR_MANIFEST_INVALID",
        message: `manifest of ${label} is invalid at \`/config\`: the config schema does not compile (${(error as Error).message})`,
        pointer: "/config",
        fix: "make `config` a valid JSON Schema object",
      });
    }
  }
  return problems;
}
