import { describe, expect, it } from "vitest";
import { compose } from "../../../kernel/compose/index.js";
import { CompositionError } from "../../../kernel/errors.js";
import { receiptsPlugin } from "../../../plugins/receipts/index.js";
import { sanitizePlugin } from "../../../plugins/sanitize/index.js";
import workspacePlugin from "../../../plugins/workspace/index.js";
import { PluginTester } from "../../../tools/testing/plugin-tester.js";

describe("sanitize manifest", () => {
  it("passes the plugin audit", () => {
    expect(new PluginTester().audit(sanitizePlugin)).toEqual([]);
  });

  it("applies the documented default", () => {
    expect(compose({ name: "t", plugins: [sanitizePlugin] }).plugins.get("sanitize")!.config).toEqual({ maxToolOutputChars: 50000 });
  });

  it("rejects unknown options and a cap below 1,000", () => {
    for (const config of [{ maxChars: 5 }, { maxToolOutputChars: 999 }]) {
      try {
        compose({ name: "t", plugins: [{ plugin: sanitizePlugin, config }] });
        expect.unreachable();
      } catch (error) {
        expect(error).toBeInstanceOf(CompositionError);
        expect((error as CompositionError).problems.map((p) => p.code)).toEqual(["KEEL_ERR_CONFIG_INVALID"]);
      }
    }
  });

  it("is ordered inside receipts whatever the listing order, and composes with workspace without a race", () => {
    for (const plugins of [
      ["workspace", sanitizePlugin, receiptsPlugin],
      [receiptsPlugin, sanitizePlugin, "workspace"],
      [sanitizePlugin, "workspace", receiptsPlugin],
    ] as const) {
      const composition = compose({ name: "t", plugins: [...plugins] }, { plugins: [workspacePlugin] });
      const chain = composition.hooks.wrapToolCall;
      expect(chain.indexOf("receipts")).toBeLessThan(chain.indexOf("sanitize"));
    }
    expect(compose({ name: "t", plugins: [sanitizePlugin] }).order).toEqual(["sanitize"]);
  });
});
