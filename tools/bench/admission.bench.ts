/**
 * Admissions/s of the SQL run store against the raw driver doing the same transaction
 * (tools/bench/admission-raw.ts), on SQLite and PostgreSQL (skipped with the reason when
 * KEEL_TEST_PG_URL is not reachable), with 1 and 16 concurrent clients. Every admission
 * is on a fresh thread with `multitaskStrategy: "reject"` and no per-user limit. Variants
 * are interleaved round by round; figures are medians over the rounds: wall rate, process
 * CPU per admission (`process.cpuUsage()`), and, for PostgreSQL, whole-machine CPU.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import type { RunStore } from "../../kernel/runs/types.js";
import { createSqlRunStore } from "../../plugins/store-sql/index.js";
import { rawPostgresAdmitter, rawSqliteAdmitter, type AdmissionCase, type RawAdmitter } from "./admission-raw.js";

const ADMISSIONS = Number(process.env.KEEL_BENCH_ADMISSIONS ?? 400);
const ROUNDS = 5;
const CONCURRENCY = [1, 16];
const PG_URL = process.env.KEEL_TEST_PG_URL ?? "postgres://keel:keel@127.0.0.1:5432/keel";
const REQUEST = JSON.stringify({ assistantId: "lead", input: null });

type Admit = (a: AdmissionCase) => Promise<void>;

interface Sample {
  perSec: number;
  cpuUsPerAdmission: number;
  machineCpuUsPerAdmission: number;
}

const machineCpuUs = (): number => cpus().reduce((sum, cpu) => sum + cpu.times.user + cpu.times.sys + cpu.times.nice + cpu.times.irq, 0) * 1000;

function storeAdmit(store: RunStore): Admit {
  return async (a) => {
    const result = await store.admitRun({
      runId: a.runId, threadId: a.threadId, assistantId: "lead", status: "pending", multitaskStrategy: "reject", epoch: 0,
      createdAt: a.now, updatedAt: a.now, user: a.user, request: { assistantId: "lead", input: null },
    });
    if (!result.ok) throw new Error(`admission refused on fresh thread ${a.threadId}`);
  };
}

let batchNo = 0;
async function batch(prefix: string, seed: RawAdmitter, admit: Admit, concurrency: number): Promise<Sample> {
  const now = new Date().toISOString();
  const tag = `${prefix}-${batchNo++}`;
  const threads = Array.from({ length: ADMISSIONS }, (_, i) => `${tag}-${i}`);
  await seed.createThreads(threads, "bench", now);
  let next = 0;
  const worker = async () => {
    while (next < threads.length) {
      const threadId = threads[next++]!;
      await admit({ runId: `${threadId}-r`, threadId, user: "bench", now, request: REQUEST });
    }
  };
  const cpu0 = process.cpuUsage();
  const machine0 = machineCpuUs();
  const start = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const ms = performance.now() - start;
  const cpu = process.cpuUsage(cpu0);
  return {
    perSec: ADMISSIONS / (ms / 1000),
    cpuUsPerAdmission: (cpu.user + cpu.system) / ADMISSIONS,
    machineCpuUsPerAdmission: (machineCpuUs() - machine0) / ADMISSIONS,
  };
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function measure(label: string, raw: RawAdmitter, store: RunStore, prefix: string, machine: boolean): Promise<string[]> {
  const variants: Array<[string, Admit]> = [["raw driver", raw.admit], ["keel store", storeAdmit(store)]];
  const samples = new Map<string, Sample[]>();
  // Warm-up, unmeasured: statement caches, pool connections, JIT.
  for (const [, admit] of variants) await batch(prefix, raw, admit, 16);
  for (let round = 0; round < ROUNDS; round++) {
    for (const concurrency of CONCURRENCY) {
      for (const [name, admit] of variants) {
        const key = `${name} × ${concurrency}`;
        samples.set(key, [...(samples.get(key) ?? []), await batch(prefix, raw, admit, concurrency)]);
      }
    }
  }
  const lines = [`admissions ${label}: ${ADMISSIONS} admitRun transactions per batch, fresh threads, median of ${ROUNDS} interleaved rounds`];
  for (const concurrency of CONCURRENCY) {
    const pick = (name: string, field: keyof Sample) => median(samples.get(`${name} × ${concurrency}`)!.map((s) => s[field]));
    const rawRate = pick("raw driver", "perSec");
    for (const [name] of variants) {
      const rate = pick(name, "perSec");
      const cpu = `${pick(name, "cpuUsPerAdmission").toFixed(0).padStart(5)} µs CPU/adm` + (machine ? `, machine ${pick(name, "machineCpuUsPerAdmission").toFixed(0).padStart(5)} µs/adm` : "");
      lines.push(`  ${`${name}, ${concurrency} client${concurrency === 1 ? "" : "s"}`.padEnd(24)} ${Math.round(rate).toLocaleString("en-US").padStart(8)}/s  ${(rate / rawRate).toFixed(2)}× raw  (${cpu})`);
    }
  }
  return lines;
}

async function sqlite(): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), "keel-bench-admission-"));
  const path = join(dir, "keel.db");
  const store = await createSqlRunStore(`sqlite:${path}`);
  const raw = rawSqliteAdmitter(path);
  try {
    return await measure("SQLite (file, WAL)", raw, store, "sq", false);
  } finally {
    await raw.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function postgres(): Promise<string[]> {
  let store: RunStore;
  try {
    store = await createSqlRunStore(PG_URL);
  } catch (error) {
    return [`admissions PostgreSQL: skipped (${(error as Error).message.split("\n")[0]})`];
  }
  const raw = rawPostgresAdmitter(PG_URL);
  const prefix = `bench-adm-${process.pid}-${Date.now()}`;
  try {
    return await measure("PostgreSQL (pool of 10)", raw, store, prefix, true);
  } finally {
    await raw.deleteThreads(`${prefix}-`);
    await raw.close();
    await store.close();
  }
}

export async function benchAdmission(): Promise<string[]> {
  const lines = [...(await sqlite()), ...(await postgres())];
  lines.push("  target: keel store ≥ 0.3× the raw driver on SQLite");
  return lines;
}
