/**
 * The database's own ordered record of lease changes and writes: a test-only audit table
 * and row triggers the suite installs on its private database (never in the product).
 * `seq` is a sequence value taken inside the writing transaction; a fenced checkpoint
 * write holds its lease row `FOR SHARE`, so a lease change and a write on it are ordered
 * by `seq` as they were by the database.
 *
 * Every table that may carry a lease epoch is audited with the row's `thread_id`,
 * `run_id` and `epoch` when it has such columns (read through `to_jsonb`, so a table
 * that gains an `epoch` column later is audited with it, no change here). keel_runs rows
 * are audited only when `status` or `epoch` changes (heartbeats are not lease changes).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type pg from "pg";
import type { AuditEvent, Leftovers, StoredRun, StoreView } from "./history.js";

export const AUDITED_TABLES = ["keel_runs", "keel_ckpt_checkpoints", "keel_ckpt_values", "keel_ckpt_writes", "keel_journal_entries", "keel_reports"];

export const AUDIT_SQL = `
create table if not exists nemesis_audit (
  seq bigserial primary key,
  at timestamptz not null default clock_timestamp(),
  tbl text not null,
  op text not null,
  thread_id text,
  run_id text,
  epoch bigint,
  status text,
  old_status text,
  old_epoch bigint
);
create or replace function nemesis_audit_row() returns trigger language plpgsql as $$
declare
  r jsonb;
  o jsonb;
begin
  if TG_OP = 'DELETE' then r := to_jsonb(OLD); else r := to_jsonb(NEW); end if;
  if TG_OP = 'UPDATE' then o := to_jsonb(OLD); end if;
  if TG_TABLE_NAME = 'keel_runs' and TG_OP = 'UPDATE' and r->>'status' = o->>'status' and r->>'epoch' = o->>'epoch' then
    return null;
  end if;
  insert into nemesis_audit (tbl, op, thread_id, run_id, epoch, status, old_status, old_epoch)
  values (TG_TABLE_NAME, TG_OP, r->>'thread_id', r->>'run_id', (r->>'epoch')::bigint,
          case when TG_TABLE_NAME = 'keel_runs' then r->>'status' end, o->>'status', (o->>'epoch')::bigint);
  return null;
end $$;
${AUDITED_TABLES.map((t) => `drop trigger if exists nemesis_audit_${t} on ${t};\ncreate trigger nemesis_audit_${t} after insert or update or delete on ${t} for each row execute function nemesis_audit_row();`).join("\n")}
`;

export async function installAudit(client: pg.Client): Promise<void> {
  await client.query(AUDIT_SQL);
}

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

/** What the store holds of `threadIds` (runs, audit, and for `deletedThreadIds` the leftovers). */
export async function readStoreView(client: pg.Client, threadIds: string[], deletedThreadIds: string[], workspaces: string): Promise<StoreView> {
  const runIds = (await client.query("select distinct run_id from nemesis_audit where tbl = 'keel_runs' and thread_id = any($1)", [threadIds])).rows.map((r) => r.run_id as string);
  const runs: StoredRun[] = (await client.query("select run_id, thread_id, status, epoch, outcome from keel_runs where thread_id = any($1)", [threadIds])).rows.map((r) => {
    const stopReason = r.outcome ? (JSON.parse(r.outcome) as { primaryStopReason?: string }).primaryStopReason : undefined;
    return { runId: r.run_id, threadId: r.thread_id, status: r.status, epoch: Number(r.epoch), ...(stopReason ? { stopReason } : {}) };
  });
  const audit: AuditEvent[] = (
    await client.query(
      "select seq, extract(epoch from at) * 1000 as at_ms, tbl, op, thread_id, run_id, epoch, status, old_status, old_epoch from nemesis_audit where split_part(thread_id, '/', 1) = any($1) or run_id = any($2) order by seq",
      [threadIds, runIds],
    )
  ).rows.map((r) => ({
    seq: Number(r.seq),
    at: Number(r.at_ms),
    table: r.tbl,
    op: r.op,
    threadId: r.thread_id,
    runId: r.run_id,
    epoch: num(r.epoch),
    status: r.status,
    oldStatus: r.old_status,
    oldEpoch: num(r.old_epoch),
  }));
  const leftovers: Record<string, Leftovers> = {};
  for (const threadId of deletedThreadIds) leftovers[threadId] = await leftoversOf(client, threadId, workspaces);
  return { runs, audit, leftovers };
}

async function leftoversOf(client: pg.Client, threadId: string, workspaces: string): Promise<Leftovers> {
  const count = async (sql: string, params: unknown[]) => Number((await client.query(sql, params)).rows[0].n);
  const runIds = (await client.query("select distinct run_id from nemesis_audit where tbl = 'keel_runs' and thread_id = $1", [threadId])).rows.map((r) => r.run_id as string);
  const left: Leftovers = {
    keel_threads: await count("select count(*) as n from keel_threads where thread_id = $1", [threadId]),
    keel_runs: await count("select count(*) as n from keel_runs where thread_id = $1", [threadId]),
    keel_journal_entries: await count("select count(*) as n from keel_journal_entries where run_id = any($1)", [runIds]),
    keel_reports: await count("select count(*) as n from keel_reports where run_id = any($1)", [runIds]),
  };
  for (const table of ["keel_ckpt_checkpoints", "keel_ckpt_values", "keel_ckpt_writes"]) {
    left[table] = await count(`select count(*) as n from ${table} where thread_id = $1 or thread_id like $2`, [threadId, `${threadId}/%`]);
  }
  left.workspace = existsSync(join(workspaces, threadId)) ? 1 : 0;
  return left;
}
