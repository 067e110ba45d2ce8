/** A new, empty PostgreSQL database beside `baseUrl`'s (the role needs CREATEDB), dropped by `drop()`. */
import { randomUUID } from "node:crypto";
import { createRequire } from "node:module";

interface PgClient {
  connect(): Promise<void>;
  query(sql: string): Promise<unknown>;
  end(): Promise<void>;
}
const { Client } = createRequire(import.meta.url)("pg") as { Client: new (options: { connectionString: string }) => PgClient };

async function admin(baseUrl: string, work: (client: Pick<PgClient, "query">) => Promise<void>): Promise<void> {
  const client = new Client({ connectionString: baseUrl });
  await client.connect();
  try {
    await work(client);
  } finally {
    await client.end();
  }
}

/**
 * Drops a scratch database as its owner, who is no superuser. `DROP DATABASE … WITH (FORCE)`
 * refuses when an autovacuum worker is on the database ("must be a member of the role whose
 * process is being terminated"), so the owner's own client sessions are ended first and a
 * plain `DROP DATABASE` follows: it waits up to 5 s for them to go and stops autovacuum itself.
 */
export async function dropDatabase(client: Pick<PgClient, "query">, name: string): Promise<void> {
  await client.query(
    `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${name}' AND backend_type = 'client backend' AND usename = current_user AND pid <> pg_backend_pid()`,
  );
  await client.query(`DROP DATABASE IF EXISTS ${name}`);
}

export async function scratchDatabase(baseUrl: string, prefix: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `${prefix}_${randomUUID().replaceAll("-", "").slice(0, 12)}`;
  await admin(baseUrl, (client) => client.query(`create database ${name}`).then(() => undefined));
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(baseUrl, (client) => dropDatabase(client, name)) };
}
