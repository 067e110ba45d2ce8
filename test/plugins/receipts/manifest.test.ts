import { describe, expect, it } from "vitest";
import { compose } from "../../../kernel/compose/index.js";
import { CompositionError } from "../../../kernel/errors.js";
import { receiptsPlugin } from "../../../plugins/receipts/index.js";
import workspacePlugin from "../../../plugins/workspace/index.js";
import { PluginTester } from "../../../tools/testing/plugin-tester.js";

describe("receipts manifest", () => {
  it("passes the plugin audit", () => {
    expect(new PluginTester().audit(receiptsPlugin)).toEqual([]);
  });

  it("applies the documented defaults", () => {
    const composition = compose({ name: "t", plugins: [receiptsPlugin] });
    expect(composition.plugins.get("receipts")!.config).toEqual({ enabled: true, render: "always", ledgerChars: 2000, keepInState: 100 });
  });

  it("rejects unknown options and bad values", () => {
    const bad = (config: Record<string, unknown>) => () => compose({ name: "t", plugins: [{ plugin: receiptsPlugin, config }] });
    for (const config of [{ renderMode: "always" }, { render: "sometimes" }, { ledgerChars: 10 }, { keepInState: 0 }, { keepInState: 2.5 }]) {
      expect(bad(config)).toThrow(CompositionError);
      try {
        bad(config)();
      } catch (error) {
        expect((error as CompositionError).problems.map((p) => p.code)).toEqual(["KEEL_ERR_CONFIG_INVALID"]);
      }
    }
  });

  it("`keepInState` sets the bound of the `receipts` reducer (the manifest's 100 is the default)", () => {
    const composition = compose({ name: "t", plugins: [{ plugin: receiptsPlugin, config: { keepInState: 7 } }] });
    expect(composition.channels.get("receipts")?.reducer).toEqual({ kind: "append", keepNewest: 7, keepNewestOption: "keepInState" });
    const layered = compose({ name: "t", plugins: [receiptsPlugin] }, { config: [{ receipts: { keepInState: 3 } }] });
    expect(layered.channels.get("receipts")?.reducer).toMatchObject({ keepNewest: 3 });
  });

  it("composes with workspace, the receipts channel typed receipt@1", () => {
    const composition = compose({ name: "t", plugins: ["workspace", receiptsPlugin] }, { plugins: [workspacePlugin] });
    expect(composition.channels.get("receipts")).toMatchObject({ owner: "receipts", reducer: { kind: "append", keepNewest: 100 }, contract: "receipt@1" });
    expect(composition.channels.get("receiptCounts")).toMatchObject({ owner: "receipts", reducer: "sum", runtimeOwned: true });
    expect(composition.channels.get("receiptIndex")).toMatchObject({ owner: "receipts", reducer: "append", runtimeOwned: true });
    expect(composition.channels.get("receiptRun")).toMatchObject({ owner: "receipts", reducer: "replace" });
  });
});
