/** A new, empty PostgreSQL database beside `baseUrl`'s (the role needs CREATEDB), dropped by `drop()`. */
import { randomUUID } from "node:crypto";
import { createRequire } from "node:module";

interface PgClient {
  connect(): Promise<void>;
  query(sql: string): Promise<unknown>;
  end(): Promise<void>;
}
const { Client } = createRequire(import.meta.url)("pg") as { Client: new (options: { connectionString: string }) => PgClient };

async function admin(baseUrl: string, sql: string): Promise<void> {
  const client = new Client({ connectionString: baseUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

export async function scratchDatabase(baseUrl: string, prefix: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `${prefix}_${randomUUID().replaceAll("-", "").slice(0, 12)}`;
  await admin(baseUrl, `create database ${name}`);
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(baseUrl, `drop database if exists ${name} with (force)`) };
}
