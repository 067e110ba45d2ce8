/**
 * A third-party stream bridge (test/fixtures/third-party-bridge/tap-bridge.mjs) loaded the
 * way `keel serve --plugin FILE` loads it — the module by path, composed into the serve
 * service stack, its `stream-bridge` port built from the composition — passes the same
 * conformance suite as the built-in bridges. `npm test` builds dist first: the fixture
 * imports `keel/host` by package name, as a plugin author's module would.
 */
import { join } from "node:path";
import { TAP_BRIDGE } from "../fixtures/third-party-bridge/index.js";
import { describe, expect, it } from "vitest";
import { CompositionError } from "../../kernel/errors.js";
import { packageRoot } from "../../kernel/package-root.js";
import { buildPort } from "../../kernel/ports/resolve.js";
import type { StreamBridge } from "../../kernel/runs/types.js";
import { composeServices } from "../../tools/serve/run-services.js";
import { loadPluginModule } from "../../tools/stacks/load-stack.js";
import { describeStreamBridgeConformance } from "./bridge-conformance.js";


const RETENTION = 8;

async function servedBridge(): Promise<StreamBridge> {
  const plugin = await loadPluginModule(TAP_BRIDGE);
  const services = composeServices({ db: "sqlite::memory:", plugins: [plugin] });
  // The conformance suite needs a small retention; the fixture's option is set as a stack layer would.
  const composition = { ...services, plugins: new Map(services.plugins) };
  const member = composition.plugins.get("tap-bridge")!;
  composition.plugins.set("tap-bridge", { ...member, config: { ...member.config, retention: RETENTION } });
  return buildPort<StreamBridge>(composition, "stream-bridge");
}

describeStreamBridgeConformance("third-party tap-bridge through the serve service stack", servedBridge, { retention: RETENTION });

describe("the serve service stack", () => {
  it("takes the stream-bridge port from the --plugin service, and the other ports from the built-ins", async () => {
    const plugin = await loadPluginModule(TAP_BRIDGE);
    const services = composeServices({ db: "sqlite::memory:", plugins: [plugin] });
    expect([...services.order]).toEqual(expect.arrayContaining(["store-sql", "gateway", "tap-bridge"]));
    expect(services.plugins.get("tap-bridge")!.plugin.manifest.provides).toEqual(["stream-bridge"]);
    expect(services.plugins.has("stream-redis")).toBe(false);
  });

  it("refuses a --plugin bridge beside --redis: two providers of stream-bridge", async () => {
    const plugin = await loadPluginModule(TAP_BRIDGE);
    let error: unknown;
    try {
      composeServices({ db: "sqlite::memory:", redis: "redis://127.0.0.1:6379", plugins: [plugin] });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(CompositionError);
    expect((error as CompositionError).problems).toEqual([
      expect.objectContaining({ code: "KEEL_ERR_COMPOSE_PORT_CONFLICT", plugins: ["stream-redis", "tap-bridge"] }),
    ]);
  });

  it("refuses a --plugin that is not a service, saying where middleware goes", async () => {
    const plugin = await loadPluginModule(join(packageRoot(), "test", "fixtures", "plugins", "audit-log.mjs"));
    expect(() => composeServices({ db: "sqlite::memory:", plugins: [plugin] })).toThrow(/adds services .*--stack FILE/);
  });
});
