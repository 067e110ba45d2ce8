import { describe, expect, it } from "vitest";
import { compose } from "../../../kernel/compose/index.js";
import { CompositionError } from "../../../kernel/errors.js";
import { acceptancePlugin, DEFAULT_ACCEPTANCE_OPTIONS } from "../../../plugins/acceptance/index.js";
import { workspacePlugin } from "../../../plugins/workspace/index.js";
import { PluginTester } from "../../../tools/testing/plugin-tester.js";

describe("acceptance plugin", () => {
  it("passes the manifest audit and has no hooks", () => {
    expect(new PluginTester().audit(acceptancePlugin)).toEqual([]);
    expect(Object.keys(acceptancePlugin.hooks)).toEqual([]);
    expect(acceptancePlugin.manifest.requires).toEqual(["workspace"]);
  });

  it("composes with the workspace and applies its option defaults", () => {
    const composition = compose({ name: "t", plugins: [workspacePlugin, acceptancePlugin] });
    expect(composition.plugins.get("acceptance")!.config).toEqual(DEFAULT_ACCEPTANCE_OPTIONS);
    const tuned = compose({ name: "t", plugins: [workspacePlugin, acceptancePlugin] }, { config: [{ acceptance: { evidenceWindow: 5 } }] });
    expect(tuned.plugins.get("acceptance")!.config.evidenceWindow).toBe(5);
  });

  it("does not compose without a workspace port, nor with unknown options", () => {
    const missing = (() => {
      try {
        compose({ name: "t", plugins: [acceptancePlugin] });
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(missing).toBeInstanceOf(CompositionError);
    expect((missing as CompositionError).problems.map((p) => p.code)).toContain("KEEL_ERR_COMPOSE_MISSING_PORT");
    expect(() => compose({ name: "t", plugins: [workspacePlugin, acceptancePlugin] }, { config: [{ acceptance: { window: 5 } }] })).toThrow(/KEEL_ERR_CONFIG_INVALID/);
  });
});
