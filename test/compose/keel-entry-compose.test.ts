import { describe, expect, it } from "vitest";
import { compose as kernelCompose } from "../../kernel/compose/index.js";
import { CompositionError } from "../../kernel/errors.js";
import { definePlugin } from "../../kernel/plugin/define-plugin.js";
import { compose, loadStack } from "../../tools/index.js";

const mine = definePlugin({
  manifest: { name: "mine", version: "1.0.0", kind: "middleware", kernel: ">=0.1.0", description: "observes messages", hooks: { beforeModel: { observes: ["messages"] } }, config: { type: "object" } },
  hooks: { beforeModel: () => undefined },
});

describe("compose as the `keel` package exports it", () => {
  it("resolves built-in plugin names without being handed the built-ins (the kernel's compose does not)", () => {
    const stack = { name: "s", plugins: ["workspace", "read-before-write", "mine"] };
    expect(compose(stack, { plugins: [mine] }).order).toEqual(["workspace", "read-before-write", "mine"]);
    expect(() => kernelCompose(stack, { plugins: [mine] })).toThrow(CompositionError);
  });

  it("reads a string as the CLI reads STACK: a built-in stack name gives what loadStack + compose give", async () => {
    const loaded = await loadStack("lead");
    expect(compose("lead").order).toEqual(kernelCompose(loaded.stack, { plugins: loaded.plugins }).order);
    expect(() => compose("no-such-stack")).toThrow(/not a built-in stack/);
  });

  it("lets a plugin handed in replace the built-in of its name", () => {
    const workspace = definePlugin({ ...mine, manifest: { ...mine.manifest, name: "workspace" } });
    const composition = compose({ name: "s", plugins: ["workspace"] }, { plugins: [workspace] });
    expect(composition.plugins.get("workspace")?.plugin).toBe(workspace);
    expect(compose({ name: "s", plugins: ["workspace"] }, { plugins: { workspace } }).plugins.get("workspace")?.plugin).toBe(workspace);
  });

  it("refuses a stack key stack@1 does not have (a typo is caught, not ignored), in the kernel's compose too", () => {
    for (const run of [() => compose({ name: "s", plugins: ["workspace"], ordr: [] } as never), () => kernelCompose({ name: "s", plugins: [mine], ordr: [] } as never)]) {
      const error = (() => {
        try {
          run();
        } catch (e) {
          return e as CompositionError;
        }
        return undefined;
      })();
      expect(error).toBeInstanceOf(CompositionError);
      expect(error!.problems).toEqual([expect.objectContaining({ code: "KEEL_ERR_STACK_INVALID", pointer: "/ordr", message: expect.stringContaining("unknown key `ordr`") })]);
    }
  });
});
