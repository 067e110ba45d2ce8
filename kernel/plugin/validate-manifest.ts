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
  /**
   * Absent for a problem that rejects the manifest; `"warning"` for advice that does not
   * (`keel plugin check` stays `ok: true`, compose and `definePlugin` accept the plugin).
   */
  severity?: "warning";
}

/** The prefix a plugin's own error codes take: `PLUGIN_` and its name in upper case, `-` as `_`. */
export function pluginErrorPrefix(name: string): string {
  return `PLUGIN_${name.toUpperCase().replace(/-/g, "_")}_`;
}

/**
 * The manifest audit of `keel plugin check` and PluginTester: every problem of
 * `validateManifest` (which compose and `definePlugin` reject) plus warnings, today one: a
 * manifest without a `config` schema (its options cannot be checked, nor documented).
 */
export function auditManifest(plugin: Plugin): ManifestProblem[] {
  const problems = validateManifest(plugin);
  const manifest = plugin.manifest as unknown;
  if (typeof manifest === "object" && manifest !== null && (manifest as { config?: unknown }).config === undefined) {
    const name = (manifest as { name?: unknown }).name;
    problems.push({
      code: "KEEL_ERR_MANIFEST_INVALID",
      severity: "warning",
      message: `manifest of ${typeof name === "string" ? `\`${name}\`` : "a plugin"} has no \`config\` schema, so its options are not checked`,
      pointer: "/config",
      fix: 'declare `config` (a JSON Schema with defaults); `{ "type": "object", "additionalProperties": false }` when the plugin has no options',
    });
  }
  return problems;
}

/** True when none of `problems` rejects the manifest (warnings only, or none). */
export function manifestAccepted(problems: readonly ManifestProblem[]): boolean {
  return problems.every((p) => p.severity === "warning");
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
    fix: "fix the field named by the pointer (manifest@1: schemas/manifest.v1.schema.json)",
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
      problems.push(...invalidDefaults(m.config, "/config", label));
    } catch (error) {
      problems.push({
        code: "KEEL_ERR_MANIFEST_INVALID",
        message: `manifest of ${label} is invalid at \`/config\`: the config schema does not compile (${(error as Error).message})`,
        pointer: "/config",
        fix: "make `config` a valid JSON Schema object",
      });
    }
  }
  const prefix = pluginErrorPrefix(m.name);
  for (const code of Object.keys(m.errors ?? {})) {
    if (code.startsWith(prefix) && code.length > prefix.length) continue;
    problems.push({
      code: "KEEL_ERR_MANIFEST_INVALID",
      message: `manifest of ${label} is invalid at \`/errors/${code}\`: a plugin's error codes start with \`${prefix}\` (its name), e.g. \`${prefix}TIMEOUT\``,
      pointer: `/errors/${code}`,
      fix: `rename the code to \`${prefix}<PROBLEM>\``,
    });
  }
  return problems;
}

/**
 * Every `default` in a config schema (the root, `properties` at any depth, `items`) must
 * validate against the schema it sits in: compose applies defaults, so a bad one would fail
 * every stack that does not set the option.
 */
function invalidDefaults(schema: unknown, pointer: string, label: string): ManifestProblem[] {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return [];
  const node = schema as Record<string, unknown>;
  const problems: ManifestProblem[] = [];
  if ("default" in node) {
    let result: ReturnType<typeof validateAgainst> | undefined;
    try {
      result = validateAgainst(node, structuredClone(node.default));
    } catch {
      result = undefined; // a sub-schema that does not compile alone (a `$ref` to the root): not checked here
    }
    if (result && !result.valid) {
      const issue = result.errors[0]!;
      problems.push({
        code: "KEEL_ERR_MANIFEST_INVALID",
        message: `manifest of ${label} is invalid at \`${pointer}/default\`: the default ${JSON.stringify(node.default)} does not match its own schema (${issue.pointer || "/"}: ${issue.message})`,
        pointer: `${pointer}/default`,
        fix: "change the default to a value the schema accepts, or the schema to accept it",
      });
    }
  }
  if (typeof node.properties === "object" && node.properties !== null) {
    for (const [key, sub] of Object.entries(node.properties as Record<string, unknown>)) {
      problems.push(...invalidDefaults(sub, `${pointer}/properties/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`, label));
    }
  }
  if (typeof node.items === "object" && node.items !== null && !Array.isArray(node.items)) problems.push(...invalidDefaults(node.items, `${pointer}/items`, label));
  return problems;
}
