import type { TSchema } from "typebox";

/** A named, versioned JSON shape. `schema` is the TypeBox schema (plain JSON Schema). */
export interface ContractDefinition<S extends TSchema = TSchema> {
  readonly name: string;
  readonly version: number;
  readonly title: string;
  readonly schema: S;
}

export const JSON_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema";

export function contractId(name: string, version: number): string {
  return `keel:schemas/${name}/v${version}`;
}

export function defineContract<S extends TSchema>(name: string, version: number, title: string, schema: S): ContractDefinition<S> {
  return Object.freeze({ name, version, title, schema });
}

/** The published form: `$schema`, `$id` and `title` first, then the schema itself. */
export function publishedSchema(def: ContractDefinition): Record<string, unknown> {
  const plain = JSON.parse(JSON.stringify(def.schema)) as Record<string, unknown>;
  return { $schema: JSON_SCHEMA_DIALECT, $id: contractId(def.name, def.version), title: def.title, ...plain };
}
