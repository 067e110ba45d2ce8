/**
 * `npm run bench checkpoint`: the per-turn cost of checkpointing a plain hand-built
 * LangGraph tool loop (agent ↔ tools, the scripted model, production durability "sync"),
 * against the same loop without a checkpointer, at N = 50, 200, 400, 1000 tool turns;
 * and the checkpoint storage one run leaves (SQLite: file + `-wal`; PostgreSQL:
 * `pg_total_relation_size` of the saver's tables).
 *
 * Variants: no checkpointer (the baseline), MemorySaver, the stock SqliteSaver and
 * PostgresSaver, Keel's checkpointer on SQLite and on PostgreSQL (PostgreSQL variants only
 * when KEEL_TEST_PG_URL, default the local server, is reachable). Keel's checkpointer writes
 * with a lease fence, as under the run service: its database holds a `keel_runs` row the
 * fence is checked against in every write's transaction. Keel's variants and the stock
 * savers are measured in two groups at each N, each group interleaved with its own runs of
 * the baseline (`measureGroup`). Per turn = (run of N
 * turns − run of 1 turn) / (N − 1), so startup is subtracted; variants interleaved,
 * repeated, medians; wall time, process CPU time and, with PostgreSQL in the loop,
 * whole-machine CPU time (from /proc/stat, busy jiffies of every core: other processes on
 * the machine count too).
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { randomUUID } from "node:crypto";
import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { END, MemorySaver, MessagesAnnotation, START, StateGraph, type BaseCheckpointSaver } from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { KeelCheckpointSaver } from "../../plugins/store-sql/checkpoints/keel-saver.js";
import { PostgresExecutor, type PgPool } from "../../plugins/store-sql/checkpoints/postgres-executor.js";
import { SqliteExecutor } from "../../plugins/store-sql/checkpoints/sqlite-executor.js";
import { openSqliteHandle } from "../../plugins/store-sql/checkpointer.js";
import { ScriptedChatModel, type ScriptedAgent } from "../testing/scripted-model.js";

/** `KEEL_BENCH_CHECKPOINT_SIZES` (e.g. `400,1000`) narrows the sizes; `KEEL_BENCH_CHECKPOINT_ONLY` (a substring) the variants (the baseline always runs). */
const SIZES = (process.env.KEEL_BENCH_CHECKPOINT_SIZES ?? "50,200,400,1000").split(",").map(Number).filter((n) => Number.isInteger(n) && n > 1);
const ONLY = process.env.KEEL_BENCH_CHECKPOINT_ONLY;
/**
 * Repeats per size. The stock savers (and MemorySaver) re-serialize the whole state every
 * step, so their long runs are what takes the time: fewer of them. The baseline and Keel's
 * checkpointer, whose ratios are the targets, take three at N = 50 and 200 and five at
 * N = 400 and 1000, where the targets are (with three, Keel's SQLite ratio at N = 400 read
 * 1.41× and 1.81× in two runs of the suite the same hour; its runs are short beside the
 * stock savers', so two more cost about a minute).
 */
const REPEATS: Readonly<Record<number, number>> = { 50: 3, 200: 3, 400: 5, 1000: 5 };
const STOCK_REPEATS: Readonly<Record<number, number>> = { 50: 3, 200: 3, 400: 2, 1000: 1 };
const PG_URL = process.env.KEEL_TEST_PG_URL ?? "postgres://keel:keel@127.0.0.1:5432/keel";

function script(turns: number): ScriptedAgent {
  const usage = { input_tokens: 10, output_tokens: 2 };
  return { turns: [...Array.from({ length: turns }, () => ({ toolCalls: [{ name: "noop", args: { n: 1 } }], usage })), { content: "done", usage }] };
}

/** The loop every variant runs; only the checkpointer differs. */
async function runLoop(turns: number, checkpointer: BaseCheckpointSaver | undefined, threadId: string, fence?: BenchFence): Promise<void> {
  const model = new ScriptedChatModel({ script: script(turns) });
  const bound = model.bindTools([{ type: "function", function: { name: "noop", description: "does nothing", parameters: { type: "object", properties: { n: { type: "number" } } } } }] as never);
  const graph = new StateGraph(MessagesAnnotation)
    .addNode("agent", async (s: { messages: BaseMessage[] }) => ({ messages: [await bound.invoke(s.messages)] }))
    .addNode("tools", async (s: { messages: BaseMessage[] }) => {
      const last = s.messages[s.messages.length - 1] as AIMessage;
      return { messages: (last.tool_calls ?? []).map((c) => new ToolMessage({ tool_call_id: c.id!, name: c.name, content: "ok" })) };
    })
    .addEdge(START, "agent")
    .addConditionalEdges("agent", (s: { messages: BaseMessage[] }) => ((s.messages.at(-1) as AIMessage).tool_calls?.length ? "tools" : END))
    .addEdge("tools", "agent")
    .compile(checkpointer ? { checkpointer } : {});
  await graph.invoke({ messages: [{ role: "user", content: "go" }] }, { configurable: { thread_id: threadId, ...(fence ? { keel_fence: fence } : {}) }, recursionLimit: 2 * turns + 10, durability: "sync" });
}

/** The lease fence the run service gives Keel's checkpointer on every write (checked against `keel_runs` in the write's transaction). */
interface BenchFence {
  runId: string;
  epoch: number;
}
const FENCE: BenchFence = { runId: "bench-run", epoch: 1 };
/** The run store's lease row the fence is checked against (the columns the check reads), held far into the future. */
const RUNS_TABLE_SQL = `CREATE TABLE keel_runs (run_id TEXT PRIMARY KEY, epoch INTEGER NOT NULL, status TEXT NOT NULL, lease_expires_at TEXT)`;
const RUNS_ROW_SQL = `INSERT INTO keel_runs (run_id, epoch, status, lease_expires_at) VALUES ('${FENCE.runId}', ${FENCE.epoch}, 'running', '2999-01-01T00:00:00.000Z')`;

interface Saver {
  saver: BaseCheckpointSaver | undefined;
  /** Keel's checkpointer writes fenced, as under the run service. */
  fence?: BenchFence;
  /** Bytes of checkpoint storage now. */
  storage: () => Promise<number | undefined>;
  /** After a measured run: what the saver must let go of so the next runs do not pay for it. */
  afterRun?: (threadId: string) => Promise<void>;
  close: () => Promise<void>;
}

interface Variant {
  name: string;
  usesPg: boolean;
  /** A saver that stores the whole state every step (fewer repeats: `STOCK_REPEATS`). */
  stock?: boolean;
  /** Stock savers stop at N = 1000 (all sizes here). */
  open: (dir: string) => Promise<Saver>;
}

const fileBytes = (path: string) => ["", "-wal"].reduce((sum, suffix) => sum + (safeSize(path + suffix) ?? 0), 0);
/**
 * Moves the whole log into the database file and empties it, so the file's size is what
 * the runs stored. A TRUNCATE checkpoint answers busy (and leaves the log at its largest)
 * while another connection is checkpointing — Keel's WAL worker (`wal-checkpoints.ts`):
 * retried until it is not.
 */
async function truncateWal(db: { pragma(sql: string): unknown }): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const [result] = db.pragma("wal_checkpoint(TRUNCATE)") as Array<{ busy: number }>;
    if (result?.busy === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error("the SQLite log could not be truncated in 2 s: another connection kept checkpointing");
}
function safeSize(path: string): number | undefined {
  try {
    return statSync(path).size;
  } catch {
    return undefined;
  }
}

function pgPool(schema: string): PgPool {
  const pg = createRequire(import.meta.url)("pg") as { Pool: new (o: Record<string, unknown>) => PgPool };
  const pool = new pg.Pool({ connectionString: PG_URL, max: 2, options: `-c search_path=${schema}` });
  pool.on("error", () => undefined);
  return pool;
}

async function pgSchema(): Promise<{ schema: string; pool: PgPool; size: (tables: string[]) => Promise<number>; drop: () => Promise<void> }> {
  const schema = `keel_bench_${randomUUID().replace(/-/g, "").slice(0, 10)}`;
  const pool = pgPool("public");
  await pool.query(`CREATE SCHEMA ${schema}`);
  return {
    schema,
    pool,
    size: async (tables) => {
      const { rows } = await pool.query(`SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0) AS bytes FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r' AND c.relname = ANY($2)`, [schema, tables]);
      return Number(rows[0]!.bytes);
    },
    drop: async () => {
      await pool.query(`DROP SCHEMA ${schema} CASCADE`);
      await pool.end();
    },
  };
}

function variants(pgUp: boolean): Variant[] {
  const list: Variant[] = [
    { name: "no checkpointer (baseline)", usesPg: false, open: async () => ({ saver: undefined, storage: async () => undefined, close: async () => {} }) },
    {
      name: "MemorySaver",
      usesPg: false,
      stock: true,
      open: async () => {
        const saver = new MemorySaver();
        // It keeps every checkpoint in this process (≈ 650 MB for a 1000-turn run): dropped once
        // measured, or every later run of every variant pays the collector for walking it.
        return { saver, storage: async () => undefined, afterRun: (threadId) => saver.deleteThread(threadId), close: async () => {} };
      },
    },
    {
      name: "stock SqliteSaver",
      usesPg: false,
      stock: true,
      open: async (dir) => {
        const path = join(dir, `stock-${randomUUID()}.db`);
        const saver = SqliteSaver.fromConnString(path);
        saver.db.pragma("journal_mode = WAL");
        return { saver, storage: async () => (await truncateWal(saver.db), fileBytes(path)), close: async () => void saver.db.close() };
      },
    },
    {
      name: "Keel checkpointer, SQLite",
      usesPg: false,
      open: async (dir) => {
        const path = join(dir, `keel-${randomUUID()}.db`);
        const handle = openSqliteHandle(path);
        handle.exec(`${RUNS_TABLE_SQL}; ${RUNS_ROW_SQL}`);
        const saver = new KeelCheckpointSaver(new SqliteExecutor(handle, true));
        return { saver, fence: FENCE, storage: async () => (await truncateWal(handle), fileBytes(path)), close: () => saver.close() };
      },
    },
  ];
  if (pgUp) {
    list.push(
      {
        name: "stock PostgresSaver",
        usesPg: true,
        stock: true,
        open: async () => {
          const { PostgresSaver } = await import("@langchain/langgraph-checkpoint-postgres");
          const db = await pgSchema();
          const saver = PostgresSaver.fromConnString(PG_URL, { schema: db.schema });
          await saver.setup();
          return {
            saver,
            storage: () => db.size(["checkpoints", "checkpoint_blobs", "checkpoint_writes"]),
            close: async () => {
              await saver.end();
              await db.drop();
            },
          };
        },
      },
      {
        name: "Keel checkpointer, PostgreSQL",
        usesPg: true,
        open: async () => {
          const db = await pgSchema();
          const pool = pgPool(db.schema);
          await pool.query(RUNS_TABLE_SQL);
          await pool.query(RUNS_ROW_SQL);
          const saver = new KeelCheckpointSaver(new PostgresExecutor(pool, true));
          await saver.setup();
          return {
            saver,
            fence: FENCE,
            storage: () => db.size(["keel_ckpt_checkpoints", "keel_ckpt_values", "keel_ckpt_writes"]),
            close: async () => {
              await saver.close();
              await db.drop();
            },
          };
        },
      },
    );
  }
  return list;
}

/** Busy jiffies of the whole machine (every core), from /proc/stat; undefined where it does not exist. */
function machineBusy(): number | undefined {
  try {
    const [cpu] = readFileSync("/proc/stat", "utf8").split("\n");
    const fields = cpu!.trim().split(/\s+/).slice(1).map(Number);
    const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
    return fields.reduce((a, b) => a + b, 0) - idle;
  } catch {
    return undefined;
  }
}
const JIFFY_MS = 10;

interface Sample {
  wall: number;
  cpu: number;
  machine: number | undefined;
}

async function measure(fn: () => Promise<void>): Promise<Sample> {
  const m0 = machineBusy();
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await fn();
  const wall = performance.now() - t0;
  const c = process.cpuUsage(c0);
  const m1 = machineBusy();
  return { wall, cpu: (c.user + c.system) / 1000, machine: m0 !== undefined && m1 !== undefined ? (m1 - m0) * JIFFY_MS : undefined };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

function reachable(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port || 5432) });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}

interface Row {
  v: Variant;
  wall: number;
  cpu: number;
  machine: number;
  base: { wall: number; cpu: number };
  perRun: number | undefined;
}

/** One group of variants (the first is the baseline) at N turns: opened, warmed, interleaved, repeated; medians. */
async function measureGroup(group: readonly Variant[], n: number, dir: string, rotation: number, repeatsOf: (n: number, stock: boolean) => number): Promise<Row[]> {
  const repeatsOfVariant = group.map((v) => repeatsOf(n, v.stock === true));
  const repeats = Math.max(...repeatsOfVariant);
  const opened = await Promise.all(group.map((v) => v.open(dir)));
  const samples = group.map(() => [] as Sample[]);
  try {
    for (const [i, s] of opened.entries()) await runLoop(5, s.saver, `warm-${i}`, s.fence);
    const storageBefore = await Promise.all(opened.map((s) => s.storage()));
    for (let r = 0; r < repeats; r += 1) {
      // Who goes first rotates from repeat to repeat and size to size, so no variant always follows the same one.
      for (let k = 0; k < opened.length; k += 1) {
        const i = (k + r + rotation) % opened.length;
        const s = opened[i]!;
        if (r >= repeatsOfVariant[i]!) continue;
        const long = await measure(() => runLoop(n, s.saver, `n${n}-r${r}-long`, s.fence));
        await s.afterRun?.(`n${n}-r${r}-long`);
        const short = await measure(() => runLoop(1, s.saver, `n${n}-r${r}-short`, s.fence));
        await s.afterRun?.(`n${n}-r${r}-short`);
        samples[i]!.push({
          wall: (long.wall - short.wall) / (n - 1),
          cpu: (long.cpu - short.cpu) / (n - 1),
          machine: long.machine !== undefined && short.machine !== undefined ? (long.machine - short.machine) / (n - 1) : undefined,
        });
      }
    }
    const storageAfter = await Promise.all(opened.map((s) => s.storage()));
    const base = { wall: median(samples[0]!.map((s) => s.wall)), cpu: median(samples[0]!.map((s) => s.cpu)) };
    return group.map((v, i) => {
      const before = storageBefore[i];
      const after = storageAfter[i];
      return {
        v,
        wall: median(samples[i]!.map((s) => s.wall)),
        cpu: median(samples[i]!.map((s) => s.cpu)),
        machine: v.usesPg || i === 0 ? median(samples[i]!.map((s) => s.machine ?? Number.NaN)) : Number.NaN,
        base,
        // Each repeat stores one N-turn and one 1-turn run; the 1-turn runs are negligible beside N.
        perRun: before !== undefined && after !== undefined ? (after - before) / repeatsOfVariant[i]! : undefined,
      };
    });
  } finally {
    for (const s of opened) await s.close();
  }
}

export async function benchCheckpoint(
  sizes: readonly number[] = SIZES,
  repeatsOf: (n: number, stock: boolean) => number = (n, stock) => (stock ? STOCK_REPEATS : REPEATS)[n] ?? 3,
  /** A subset of variants by name (the baseline always runs): for quick looks. */
  only: ((name: string) => boolean) | undefined = ONLY ? (name) => name.includes(ONLY) : undefined,
): Promise<string[]> {
  const started = performance.now();
  const pgUp = await reachable(PG_URL);
  const list = variants(pgUp).filter((v, i) => i === 0 || !only || only(v.name));
  const dir = mkdtempSync(join(tmpdir(), "keel-bench-ckpt-"));
  const lines = [
    `checkpoint: per-turn cost of a hand-built LangGraph tool loop, durability "sync", (run of N − run of 1) / (N − 1), median of ${sizes.map((n) => `${repeatsOf(n, false)} at N=${n}`).join(", ")} (stock savers ${sizes.map((n) => repeatsOf(n, true)).join("/")}), Keel's checkpointers and the stock savers in two groups, each interleaved with its own baseline; ratio vs the same loop without a checkpointer; storage after a WAL checkpoint (SQLite) or pg_total_relation_size`,
  ];
  if (!pgUp) lines.push(`  (PostgreSQL not reachable at KEEL_TEST_PG_URL: its variants skipped)`);
  lines.push(`  ${"variant".padEnd(32)} ${"N".padStart(5)} ${"wall ms/turn".padStart(13)} ${"×".padStart(6)} ${"cpu ms/turn".padStart(12)} ${"×".padStart(6)} ${"machine ms/turn".padStart(16)} ${"storage/run".padStart(12)}`);
  const verdicts: string[] = [];
  // Two groups, each with its own interleaved baseline: Keel's checkpointers (the targets), then
  // the stock savers. A stock saver's long run serializes the whole state every step and leaves
  // the heap hundreds of megabytes to collect; measured among them, Keel's ratio moved by ±0.3×
  // from run to run while measured beside its own baseline it moves by less.
  const [baseline, ...rest] = list;
  const groups = [[baseline!, ...rest.filter((v) => !v.stock)], [baseline!, ...rest.filter((v) => v.stock)]].filter((g) => g.length > 1);
  try {
    await runLoop(20, undefined, "warm"); // warm-up
    let rotation = 0;
    for (const n of sizes) {
      for (const [g, group] of groups.entries()) {
        rotation += 1;
        for (const row of await measureGroup(group, n, dir, rotation, repeatsOf)) {
          const { v, wall, cpu, base, machine, perRun } = row;
          const name = v === baseline && g > 0 ? "no checkpointer (stock group)" : v.name;
          lines.push(
            `  ${name.padEnd(32)} ${String(n).padStart(5)} ${wall.toFixed(3).padStart(13)} ${(wall / base.wall).toFixed(2).padStart(6)} ${cpu.toFixed(3).padStart(12)} ${(cpu / base.cpu).toFixed(2).padStart(6)} ${(Number.isNaN(machine) ? "" : machine.toFixed(3)).padStart(16)} ${(perRun === undefined ? "" : `${(perRun / 1048576).toFixed(2)} MB`).padStart(12)}`,
          );
          if (v.name === "Keel checkpointer, SQLite" && (n === 400 || n === 1000)) verdicts.push(`SQLite N=${n}: ${(wall / base.wall).toFixed(2)}× wall (target ≤ 1.5×)`);
          if (v.name === "Keel checkpointer, PostgreSQL" && (n === 400 || n === 1000)) verdicts.push(`PostgreSQL N=${n}: ${(wall / base.wall).toFixed(2)}× wall (target ≤ 2×)`);
          if (v.name === "Keel checkpointer, SQLite" && n === 1000 && perRun !== undefined) verdicts.push(`storage of a 1000-turn run on SQLite: ${(perRun / 1048576).toFixed(2)} MB (target < 20 MB)`);
        }
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  if (verdicts.length > 0) lines.push(`  targets: ${verdicts.join("; ")}`);
  lines.push(`  suite time ${((performance.now() - started) / 1000).toFixed(0)} s`);
  return lines;
}
