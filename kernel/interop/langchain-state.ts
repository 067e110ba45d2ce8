import { getInteropZodDefaultGetter, getInteropZodObjectShape, interopParse, isInteropZodObject, isInteropZodSchema } from "@langchain/core/utils/types";
import { toJsonSchema } from "@langchain/core/utils/json_schema";
import { isRecord } from "../../contracts/plain-object.js";
import { KeelError } from "../errors.js";
import type { ChannelDeclaration } from "../../contracts/manifest/v1.js";

/** One field of a LangChain middleware's `stateSchema`, as a Keel channel. */
export interface StateField {
  name: string;
  /** JSON Schema of the value (from the field's Zod schema; `{}` when it has none Keel can read). */
  schema: Record<string, unknown>;
  /** The Zod default, given to the middleware while the channel holds nothing yet (LangChain starts state at its defaults). */
  defaultValue?: () => unknown;
}

const CHANNEL_NAME = /^[a-zA-Z][a-zA-Z0-9._-]*$/;

/**
 * The fields of a `stateSchema`: a Zod object (what `createMiddleware` takes most often), a
 * LangGraph `StateSchema` (its `fields`) or an `Annotation.Root` (its `spec`). Each becomes a
 * channel the plugin owns, reducer `replace` (LangChain's default for a plain field).
 */
export function stateFieldsOf(stateSchema: unknown, middlewareName: string): StateField[] {
  if (stateSchema === undefined || stateSchema === null) return [];
  let entries: Array<[string, unknown]>;
  if (isInteropZodObject(stateSchema)) entries = Object.entries(getInteropZodObjectShape(stateSchema));
  else if (isRecord((stateSchema as { fields?: unknown }).fields)) entries = Object.entries((stateSchema as { fields: Record<string, unknown> }).fields);
  else if (isRecord((stateSchema as { spec?: unknown }).spec)) entries = Object.entries((stateSchema as { spec: Record<string, unknown> }).spec);
  else {
    throw new KeelError("KEEL_ERR_LANGCHAIN_MIDDLEWARE_INVALID", `LangChain middleware \`${middlewareName}\` has a stateSchema Keel cannot read (a Zod object, a StateSchema or an Annotation.Root); declare its channels in the manifest part's \`channels\``);
  }
  return entries.map(([name, field]) => {
    if (!CHANNEL_NAME.test(name)) {
      throw new KeelError(
        "KEEL_ERR_LANGCHAIN_MIDDLEWARE_INVALID",
        `LangChain middleware \`${middlewareName}\` keeps state field \`${name}\`, which is not a Keel channel name (^[a-zA-Z][a-zA-Z0-9._-]*$: private \`_\` fields have no channel)`,
      );
    }
    const zod = isInteropZodSchema(field) ? field : undefined;
    const getter = zod ? getInteropZodDefaultGetter(zod) : undefined;
    return { name, schema: zod ? jsonSchemaOf(zod) : {}, ...(getter ? { defaultValue: getter } : {}) };
  });
}

/** The channels a middleware's state fields become. */
export function channelsOf(fields: readonly StateField[], middlewareName: string): Record<string, ChannelDeclaration> {
  return Object.fromEntries(fields.map((f) => [f.name, { schema: f.schema, reducer: "replace" as const, description: `state field of LangChain middleware ${middlewareName}` }]));
}

/** The plugin's options schema from a Zod `contextSchema` (LangChain's runtime context is Keel's plugin config). */
export function configSchemaOf(contextSchema: unknown): Record<string, unknown> | undefined {
  if (!isInteropZodSchema(contextSchema)) return undefined;
  const schema = jsonSchemaOf(contextSchema);
  return Object.keys(schema).length === 0 ? undefined : schema;
}

/** `runtime.context` for a hook: the plugin's options, filtered and parsed by a Zod context schema as LangChain does. */
export function contextOf(contextSchema: unknown, config: Readonly<Record<string, unknown>>): Record<string, unknown> {
  if (!isInteropZodObject(contextSchema)) return { ...config };
  const picked: Record<string, unknown> = {};
  for (const key of Object.keys(getInteropZodObjectShape(contextSchema))) if (key in config) picked[key] = config[key];
  return interopParse(contextSchema, picked) as Record<string, unknown>;
}

function jsonSchemaOf(schema: Parameters<typeof toJsonSchema>[0]): Record<string, unknown> {
  try {
    const { $schema: _dialect, ...rest } = toJsonSchema(schema) as Record<string, unknown>;
    return rest;
  } catch {
    return {};
  }
}
