import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { packageRoot } from "../../kernel/package-root.js";
import { buildInspector } from "../../tools/inspector/build.js";

describe("the run inspector's committed bundle", () => {
  it("is what its sources build to (npm run inspector:build)", async () => {
    const result = await buildInspector({ check: true });
    expect(result.files).toEqual(["plugins/gateway/inspector/app.css", "plugins/gateway/inspector/app.js"]);
    expect(result.drifted).toEqual([]);
  });

  it("--check names a bundle that no longer matches its sources", async () => {
    const root = mkdtempSync(join(tmpdir(), "keel-inspector-drift-"));
    try {
      cpSync(join(packageRoot(), "inspector"), join(root, "inspector"), { recursive: true });
      // The one product module the page bundles (its imports of kernel/ are types only, erased).
      cpSync(join(packageRoot(), "tools", "sse", "sse-reader.ts"), join(root, "tools", "sse", "sse-reader.ts"));
      cpSync(join(packageRoot(), "plugins", "gateway", "inspector"), join(root, "plugins", "gateway", "inspector"), { recursive: true });
      // esbuild resolves preact from the root's node_modules.
      cpSync(join(packageRoot(), "node_modules", "preact"), join(root, "node_modules", "preact"), { recursive: true, dereference: true });
      expect((await buildInspector({ check: true, root })).drifted).toEqual([]);
      writeFileSync(join(root, "inspector", "app.css"), "body { color: red; }\n", { flag: "a" });
      expect((await buildInspector({ check: true, root })).drifted).toEqual(["plugins/gateway/inspector/app.css"]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
