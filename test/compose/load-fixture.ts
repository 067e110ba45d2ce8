import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ComposeOptions, StackInput } from "../../kernel/compose/types.js";
import type { CompositionProblem } from "../../kernel/errors.js";
import type { Plugin } from "../../kernel/plugin/types.js";
import { type ManifestSketch, pluginFrom } from "./plugin-factory.js";

export const FIXTURES = fileURLToPath(new URL("./fixtures", import.meta.url));

/** `plugins.json` entries: a manifest sketch, or `{ manifest, implements }` to supply other hook functions. */
type PluginEntry = ManifestSketch | { manifest: ManifestSketch; implements: string[] };

export interface Fixture {
  name: string;
  stack: StackInput;
  plugins: Plugin[];
  options: Omit<ComposeOptions, "plugins">;
  expected: {
    order?: string[];
    hooks?: Record<string, string[]>;
    config?: Record<string, Record<string, unknown>>;
    problems?: Array<Partial<CompositionProblem>>;
  };
}

function readJson<T>(path: string): T {
  return JSON.parse(readFileSync(path, "utf8")) as T;
}

export function loadFixture(name: string): Fixture {
  const dir = join(FIXTURES, name);
  const entries = existsSync(join(dir, "plugins.json")) ? readJson<PluginEntry[]>(join(dir, "plugins.json")) : [];
  const plugins = entries.map((entry) => ("manifest" in entry ? pluginFrom(entry.manifest, entry.implements) : pluginFrom(entry)));
  return {
    name,
    stack: readJson<StackInput>(join(dir, "stack.json")),
    plugins,
    options: existsSync(join(dir, "options.json")) ? readJson(join(dir, "options.json")) : {},
    expected: readJson(join(dir, "expected.json")),
  };
}

export function fixtureNames(): string[] {
  return readdirSync(FIXTURES, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
}
