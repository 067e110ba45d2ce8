/**
 * The checkpointer's SQL on a `pg` Pool (the run store's database). A write is one
 * transaction on one pooled client; a fenced write first reads the lease row
 * `FOR SHARE`, so a concurrent claim (an UPDATE of that row) waits for the commit and
 * the lease cannot change between the check and the write.
 *
 * A call whose connection was refused, dropped or could not be acquired fails with
 * KEEL_ERR_STORE_UNAVAILABLE (store-unavailable.ts), as the run store's calls do: e.g. a
 * `/join` that reads the thread's state while PostgreSQL is away answers 503, not 500.
 */
import { RUNS_TABLE } from "../entities.js";
import { reportUnreachable } from "../store-unavailable.js";
import { PUT_CALL, PUT_FUNCTION, PUT_WRITES_CALL, PUT_WRITES_FUNCTION } from "./postgres-functions.js";
import {
  NO_RUN_STORE,
  type CheckpointWrite,
  type LeaseFence,
  type LeaseRow,
  type PendingWritesWrite,
  type SqlExecutor,
  type SqlParam,
  type SqlRow,
  type SqlStatement,
  type WriteBatch,
  type WriteJudge,
  type WriteReads,
} from "./sql-executor.js";

/** A statement `pg` prepares once per connection under `name` (then sends only its parameters). */
export interface PgNamedQuery {
  name: string;
  text: string;
  values: unknown[];
}

/** The part of `pg`'s API used here. */
export interface PgClient {
  query(sql: string | PgNamedQuery, params?: unknown[]): Promise<{ rows: SqlRow[]; rowCount?: number | null }>;
  release(error?: Error | boolean): void;
  on(event: "error", listener: (error: Error) => void): unknown;
  removeListener(event: "error", listener: (error: Error) => void): unknown;
}
export interface PgPool {
  query(sql: string | PgNamedQuery, params?: unknown[]): Promise<{ rows: SqlRow[]; rowCount?: number | null }>;
  connect(): Promise<PgClient>;
  end(): Promise<void>;
  on(event: "error", listener: (error: Error) => void): unknown;
}

/** `?` placeholders to `$1…$n` (the checkpointer's SQL has no `?` inside literals). */
export function numberPlaceholders(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

/** Pending writes as the put function's columns (`WRITES_ARGS`), one element per write, in order. */
function writeColumns(writes: readonly PendingWritesWrite[]): unknown[][] {
  const rows = writes.flatMap((w) => w.rows.map((r) => ({ w, r })));
  return [
    rows.map(({ w }) => w.checkpointId),
    rows.map(({ w }) => w.taskId),
    rows.map(({ w }) => w.taskPath),
    rows.map(({ r }) => r.idx),
    rows.map(({ r }) => r.channel),
    rows.map(({ r }) => r.type),
    rows.map(({ r }) => r.value),
    rows.map(({ r }) => r.special),
  ];
}

/** Arbitrary, fixed: the advisory lock key of the checkpointer's DDL. */
const DDL_LOCK = 7_431_906_218;

const toDriver = (params: readonly SqlParam[]): unknown[] => params.map((p) => (p instanceof Uint8Array && !Buffer.isBuffer(p) ? Buffer.from(p.buffer, p.byteOffset, p.byteLength) : p));

/**
 * A client checked out of the pool, with an `error` listener for as long as it is out.
 * `pg` emits `error` on a client whose connection dies (a terminated backend, a database
 * restart, a cut network) even while a query of it is running; the pool listens only to
 * idle clients, so a checked-out client without a listener would crash the process. The
 * error also fails the running query; `lost()` tells the releaser to discard the client.
 */
async function checkout(pool: PgPool): Promise<{ client: PgClient; lost(): Error | undefined; release(error?: Error | boolean): void }> {
  const client = await pool.connect();
  let lostWith: Error | undefined;
  const onError = (error: Error) => {
    lostWith ??= error;
  };
  client.on("error", onError);
  return {
    client,
    lost: () => lostWith,
    release: (error) => {
      client.removeListener("error", onError);
      client.release(error ?? lostWith);
    },
  };
}

export interface PostgresExecutorOptions {
  /**
   * Send the two write functions' calls as named prepared statements (default true): each
   * connection parses and plans the call once, then receives only its parameters (measured:
   * 0.35–0.8 ms less a step, mostly the planning of a 29-argument call). False for a
   * connection pooler that cannot keep prepared statements (PgBouncer in transaction mode
   * before 1.21, or without `max_prepared_statements`).
   */
  preparedStatements?: boolean;
}

export class PostgresExecutor implements SqlExecutor {
  readonly dialect = "postgres" as const;
  private readonly texts = new Map<string, string>();

  private readonly pool: Promise<PgPool>;
  /** Write calls as named prepared statements (`PostgresExecutorOptions.preparedStatements`). */
  private readonly prepared: boolean;

  /**
   * `pool` may be a promise (a factory that must first import the optional driver): every
   * call waits for it. `ownsPool`: end the pool with the executor (a pool opened by the
   * factory, not a shared one).
   */
  constructor(
    pool: PgPool | Promise<PgPool>,
    private readonly ownsPool = false,
    options: PostgresExecutorOptions = {},
  ) {
    this.prepared = options.preparedStatements ?? true;
    this.pool = Promise.resolve(pool);
    this.pool.catch(() => undefined);
    reportUnreachable(this as PostgresExecutor, ["all", "write", "putCheckpoint", "putPendingWrites", "exec"]);
  }

  async all(sql: string, params: readonly SqlParam[]): Promise<SqlRow[]> {
    return (await (await this.pool).query(this.text(sql), toDriver(params))).rows;
  }

  async write(batch: WriteBatch, check: (reads: WriteReads) => void): Promise<void> {
    if (!batch.fence && !batch.guard && batch.statements.length === 1 && !batch.statements[0]!.otherwise) {
      // One statement is atomic on its own: no transaction, one round trip.
      check({ lease: undefined, guard: true });
      const only = batch.statements[0]!;
      await (await this.pool).query(this.text(only.sql), toDriver(only.params));
      return;
    }
    const { client, lost, release } = await checkout(await this.pool);
    let broken: Error | undefined;
    try {
      await client.query("BEGIN");
      try {
        const lease = batch.fence ? await this.lease(client, batch.fence.runId) : undefined;
        const guard = batch.guard ? (await client.query(this.text(batch.guard.sql), toDriver(batch.guard.params))).rows.length > 0 : true;
        check({ lease, guard });
        const run = async (statements: readonly SqlStatement[]): Promise<void> => {
          for (const s of statements) {
            const result = await client.query(this.text(s.sql), toDriver(s.params));
            // A driver that does not say how many rows changed runs them: they only update what is there.
            if (s.otherwise && !((result.rowCount ?? 0) > 0)) await run(s.otherwise);
          }
        };
        await run(batch.statements);
        await client.query("COMMIT");
      } catch (error) {
        await client.query("ROLLBACK").catch((rollbackError: Error) => {
          broken = rollbackError;
        });
        throw error;
      }
    } finally {
      release(broken ?? lost());
    }
  }

  /** One round trip: the `keel_ckpt_put_v2` function checks the fence and the base and writes the rows (and the step's pending writes) in one statement (`postgres-functions.ts`). */
  async putCheckpoint(write: CheckpointWrite, judge: WriteJudge): Promise<void> {
    const { checkpoint: c, values } = write;
    const params: unknown[] = [
      ...this.fenceParams(write.fence, judge),
      write.base?.checkpointId ?? null,
      write.base?.snapshotId ?? null,
      ...[c.threadId, c.ns, c.checkpointId, c.parentId, c.snapshotId, c.depth, c.type, c.header, c.metadata],
      values.map((v) => v.channel),
      values.map((v) => v.op),
      values.map((v) => v.from),
      values.map((v) => v.keep),
      values.map((v) => v.type),
      values.map((v) => v.value),
      ...writeColumns(write.pendingWrites ?? []),
    ];
    const row = (await (await this.pool).query(this.call(PUT_FUNCTION, PUT_CALL, params), params)).rows[0]!;
    if (row.o_written !== true) this.refused(write.fence, row, judge, row.o_guard === true);
  }

  /** One round trip, likewise (`keel_ckpt_put_writes_v1`). */
  async putPendingWrites(write: PendingWritesWrite, judge: WriteJudge): Promise<void> {
    const { rows } = write;
    const params: unknown[] = [
      ...this.fenceParams(write.fence, judge),
      ...[write.threadId, write.ns, write.checkpointId, write.taskId, write.taskPath],
      rows.map((r) => r.idx),
      rows.map((r) => r.channel),
      rows.map((r) => r.type),
      rows.map((r) => r.value),
      rows.map((r) => r.special),
    ];
    const row = (await (await this.pool).query(this.call(PUT_WRITES_FUNCTION, PUT_WRITES_CALL, params), params)).rows[0]!;
    if (row.o_written !== true) this.refused(write.fence, row, judge, true);
  }

  /** A write function's call: named after the function (its version is in its name), or plain text. */
  private call(name: string, text: string, values: unknown[]): string | PgNamedQuery {
    return this.prepared ? { name, text, values } : text;
  }

  /** Fence, epoch, the holder's clock and the switch, as the functions take them (nulls: an unfenced write). */
  private fenceParams(fence: LeaseFence | undefined, judge: WriteJudge): unknown[] {
    if (!fence) return [null, null, null, true];
    const { nowIso, enforce } = judge.rule();
    return [fence.runId, fence.epoch, nowIso, enforce];
  }

  /** The function wrote nothing: the judge says why (it throws); a refusal it would not explain is a bug in keeping the two rules in step. */
  private refused(fence: LeaseFence | undefined, row: SqlRow, judge: WriteJudge, guard: boolean): never {
    const lease: WriteReads["lease"] = !fence
      ? undefined
      : row.o_has_runs !== true
        ? NO_RUN_STORE
        : row.o_lease_found === true
          ? { epoch: Number(row.o_epoch), status: String(row.o_status), leaseExpiresAt: row.o_expires == null ? null : String(row.o_expires) }
          : undefined;
    judge.check({ lease, guard });
    throw new Error("checkpoint write refused by the database although the saver's lease rule holds (the two rules differ)");
  }

  /** DDL under a transaction-scoped advisory lock: workers starting together create the tables one after the other. */
  async exec(sql: string): Promise<void> {
    const { client, release } = await checkout(await this.pool);
    try {
      await client.query(`BEGIN; SELECT pg_advisory_xact_lock(${DDL_LOCK}); ${sql}; COMMIT;`);
      release();
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      release(true);
      throw error;
    }
  }

  async close(): Promise<void> {
    const pool = await this.pool.catch(() => undefined);
    if (this.ownsPool && pool) await pool.end();
  }

  private async lease(client: PgClient, runId: string): Promise<LeaseRow | undefined | typeof NO_RUN_STORE> {
    const table = await client.query(`SELECT to_regclass($1) AS t`, [RUNS_TABLE]);
    if (table.rows[0]?.t == null) return NO_RUN_STORE;
    const { rows } = await client.query(`SELECT epoch, status, lease_expires_at FROM ${RUNS_TABLE} WHERE run_id = $1 FOR SHARE`, [runId]);
    const row = rows[0] as { epoch: number | string; status: string; lease_expires_at: string | null } | undefined;
    return row && { epoch: Number(row.epoch), status: row.status, leaseExpiresAt: row.lease_expires_at };
  }

  private text(sql: string): string {
    let text = this.texts.get(sql);
    if (text === undefined) {
      text = numberPlaceholders(sql);
      this.texts.set(sql, text);
    }
    return text;
  }
}
