import { validateAgainst } from "../../contracts/ajv.js";
import { isPlainObject } from "../../contracts/plain-object.js";
import type { CompositionProblem } from "../errors.js";
import type { Member } from "./checks.js";
import { tick } from "./messages.js";

type Json = Record<string, unknown>;

/** A plugin without a `config` schema takes no options (manifest@1 default). */
const NO_OPTIONS = Object.freeze({ type: "object", properties: {}, additionalProperties: false });

/** Copy plain objects and arrays; anything else is shared (configs are JSON data). */
export function cloneData<T>(value: T): T {
  if (Array.isArray(value)) return value.map(cloneData) as T;
  if (isPlainObject(value)) {
    const out: Json = {};
    for (const [k, v] of Object.entries(value)) out[k] = cloneData(v);
    return out as T;
  }
  return value;
}

/** Plain objects merge recursively; arrays and scalars from `over` replace. Returns a new value. */
export function deepMerge(base: unknown, over: unknown): unknown {
  if (!isPlainObject(base) || !isPlainObject(over)) return cloneData(over);
  const out: Json = cloneData(base);
  for (const [k, v] of Object.entries(over)) out[k] = k in out ? deepMerge(out[k], v) : cloneData(v);
  return out;
}

/** The defaults a schema declares: its own `default`, under those of its `properties`. */
function defaultsOf(schema: unknown): unknown {
  if (!isPlainObject(schema)) return undefined;
  const own = "default" in schema ? cloneData(schema.default) : undefined;
  const properties = schema.properties;
  if (!isPlainObject(properties)) return own;
  const fromProperties: Json = {};
  for (const [key, sub] of Object.entries(properties)) {
    const value = defaultsOf(sub);
    if (value !== undefined) fromProperties[key] = value;
  }
  if (Object.keys(fromProperties).length === 0) return own;
  if (own === undefined) return fromProperties;
  return isPlainObject(own) ? deepMerge(fromProperties, own) : own;
}

export type ConfigLayers = ReadonlyArray<Readonly<Record<string, unknown>>>;

/**
 * Step 6: each plugin's options are its schema defaults, then the stack entry's `config`, then
 * each layer of `options.config` (later wins), deep-merged and validated with AJV (defaults
 * applied). Layers naming a plugin that is not in the stack are `KEEL_ERR_CONFIG_UNKNOWN_PLUGIN`.
 */
export function resolveConfigs(
  members: readonly Member[],
  listed: ReadonlySet<string>,
  layers: ConfigLayers,
  problems: CompositionProblem[],
): Map<string, Json> {
  layers.forEach((layer, i) => {
    for (const name of Object.keys(layer ?? {})) {
      if (listed.has(name)) continue;
      problems.push({
        code: "KEEL_ERR_CONFIG_UNKNOWN_PLUGIN",
        message: `config layer ${i + 1} sets options for ${tick(name)}, which is not in the stack; remove the ${tick(name)} entry or add the plugin to the stack`,
        plugins: [name],
        pointer: `/${name}`,
        fix: `remove the config for ${tick(name)} or add ${tick(name)} to the stack`,
      });
    }
  });

  const configs = new Map<string, Json>();
  for (const member of members) {
    const schema = (member.manifest.config ?? NO_OPTIONS) as Json;
    const sources: Array<[string, unknown]> = [["the stack entry", member.entryConfig]];
    layers.forEach((layer, i) => sources.push([`config layer ${i + 1}`, layer?.[member.name]]));

    let merged: unknown = defaultsOf(schema) ?? {};
    let shapeOk = true;
    for (const [source, value] of sources) {
      if (value === undefined) continue;
      if (!isPlainObject(value)) {
        shapeOk = false;
        problems.push({
          code: "KEEL_ERR_CONFIG_INVALID",
          message: `options of ${tick(member.name)} from ${source} are invalid at \`/${member.name}\`: must be an object of option names; write them as \`{ "option": value }\``,
          plugins: [member.name],
          pointer: `/${member.name}`,
          fix: "give the options as an object",
        });
        continue;
      }
      merged = deepMerge(merged, value);
    }
    if (!shapeOk) continue;

    const value = cloneData(merged);
    let result;
    try {
      result = validateAgainst(schema, value, { applyDefaults: true });
    } catch (error) {
      result = { valid: false, errors: [{ pointer: "", message: `the config schema does not compile (${(error as Error).message})` }] };
    }
    if (!result.valid) {
      for (const issue of result.errors) {
        const pointer = `/${member.name}${issue.pointer}`;
        problems.push({
          code: "KEEL_ERR_CONFIG_INVALID",
          message: `options of ${tick(member.name)} are invalid at \`${pointer}\`: ${issue.message}; fix the option (see the plugin's README for names and defaults)`,
          plugins: [member.name],
          pointer,
          fix: `fix the option at ${pointer}`,
        });
      }
      continue;
    }
    configs.set(member.name, value as Json);
  }
  return configs;
}
