import { describe, expect, it } from "vitest";
import { compose } from "../../kernel/compose/index.js";
import { CompositionError } from "../../kernel/errors.js";
import { definePlugin } from "../../kernel/plugin/define-plugin.js";
import type { Plugin } from "../../kernel/plugin/types.js";
import { validateManifest } from "../../kernel/plugin/validate-manifest.js";
import { checkPlugin } from "../../tools/cli/commands/plugin.js";
import { PluginTester } from "../../tools/testing/plugin-tester.js";

const base = {
  name: "probe",
  version: "1.0.0",
  kind: "middleware",
  kernel: ">=0.1.0",
  description: "Observes messages",
  hooks: { afterModel: { observes: ["messages"] } },
  config: { type: "object", additionalProperties: false, properties: { limit: { type: "integer", minimum: 1, default: 3 } } },
};
const hooks = { afterModel: () => undefined };
const { config: _config, ...noConfig } = base;

/** [case, manifest, hooks, accepted, pointer of the first rejecting problem] */
const table: Array<[string, Record<string, unknown>, Record<string, unknown>, boolean, string?]> = [
  ["a well-formed plugin", base, hooks, true],
  ["no config schema (a warning only)", noConfig, hooks, true],
  ["a config default its schema rejects", { ...base, config: { type: "object", properties: { limit: { type: "integer", minimum: 1, default: 0 } } } }, hooks, false, "/config/properties/limit/default"],
  ["a root config default its schema rejects", { ...base, config: { type: "object", required: ["a"], default: {} } }, hooks, false, "/config/default"],
  ["a misspelt kind", { ...base, kind: "midleware" }, hooks, false, "/kind"],
  ["an implemented, undeclared hook", base, { ...hooks, beforeModel: () => undefined }, false, "/hooks/beforeModel"],
  ["a declared hook without a function", base, {}, false, "/hooks/afterModel"],
  ["a kernel range that is not semver", { ...base, kernel: "latest" }, hooks, false, "/kernel"],
  ["an error code without the plugin's prefix", { ...base, errors: { PLUGIN_OTHER_TIMEOUT: { description: "d", solve: "s" } } }, hooks, false, "/errors/PLUGIN_OTHER_TIMEOUT"],
  ["an error code with the plugin's prefix", { ...base, errors: { PLUGIN_PROBE_TIMEOUT: { description: "d", solve: "s" } } }, hooks, true],
];

function composes(plugin: Plugin): boolean {
  try {
    compose({ name: "s", plugins: [plugin] });
    return true;
  } catch (error) {
    if (error instanceof CompositionError) return false;
    throw error;
  }
}

function defines(definition: { manifest: unknown; hooks: unknown }): boolean {
  try {
    definePlugin(definition as Parameters<typeof definePlugin>[0]);
    return true;
  } catch {
    return false;
  }
}

describe("one definition of a valid plugin: compose, definePlugin, keel plugin check and PluginTester agree", () => {
  it.each(table)("%s", async (_name, manifest, hookFns, accepted, pointer) => {
    const plugin = { manifest, hooks: hookFns } as unknown as Plugin;
    const check = await checkPlugin(plugin, { name: "empty", plugins: [] }, process.cwd());
    const tester = new PluginTester();
    const audit = tester.audit(plugin);
    const verdicts = {
      compose: composes(plugin),
      definePlugin: defines(plugin),
      pluginCheck: check.ok,
      pluginTester: audit.every((p) => p.severity === "warning"),
    };
    expect(verdicts).toEqual({ compose: accepted, definePlugin: accepted, pluginCheck: accepted, pluginTester: accepted });
    if (pointer !== undefined) expect(validateManifest(plugin)[0]?.pointer).toBe(pointer);
  });

  it("a missing config schema is one warning entry, only in the audit (compose and definePlugin see no problem)", async () => {
    const plugin = { manifest: noConfig, hooks } as unknown as Plugin;
    expect(validateManifest(plugin)).toEqual([]);
    const check = await checkPlugin(plugin, { name: "empty", plugins: [] }, process.cwd());
    expect(check).toEqual({
      ok: true,
      manifestProblems: [expect.objectContaining({ code: "KEEL_ERR_MANIFEST_INVALID", severity: "warning", pointer: "/config" })],
      problems: [],
    });
  });

  it("a bad default is reported with the value and the schema's complaint", () => {
    const plugin = { manifest: table[2]![1], hooks } as unknown as Plugin;
    expect(validateManifest(plugin)).toEqual([
      {
        code: "KEEL_ERR_MANIFEST_INVALID",
        message: "manifest of `probe` is invalid at `/config/properties/limit/default`: the default 0 does not match its own schema (/: must be >= 1)",
        pointer: "/config/properties/limit/default",
        fix: "change the default to a value the schema accepts, or the schema to accept it",
      },
    ]);
  });
});
