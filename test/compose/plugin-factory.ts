import type { Hooks, Manifest, Plugin } from "../../kernel/plugin/types.js";

export type ManifestSketch = Partial<Manifest> & { name: string };

const noop = (): undefined => undefined;

/**
 * A plugin from a manifest sketch: the required fields get valid defaults (any field the
 * sketch gives wins, so a test can write an invalid one) and every declared hook gets a
 * no-op function, unless `implementsHooks` lists the functions to supply instead.
 */
export function pluginFrom(sketch: ManifestSketch, implementsHooks?: readonly string[]): Plugin {
  const manifest = {
    version: "1.0.0",
    kind: "middleware",
    kernel: ">=0.1.0",
    description: `test plugin ${sketch.name}`,
    hooks: {},
    ...sketch,
  } as Manifest;
  const names = implementsHooks ?? Object.keys(manifest.hooks ?? {});
  const hooks = Object.fromEntries(names.map((h) => [h, noop])) as Hooks;
  return { manifest, hooks };
}
