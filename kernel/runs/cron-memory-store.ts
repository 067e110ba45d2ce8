/**
 * The CronStore in memory (one process: tests, embedded use, `keel serve` on a memory
 * store). The tick's compare-and-set is synchronous, so two schedulers of one process
 * never both win a tick.
 */
import { KeelError } from "../errors.js";
import type { CronFilter, CronPatch, CronRecord, CronSearch, CronStore } from "./cron-types.js";

const copy = (cron: CronRecord): CronRecord => structuredClone(cron);

export class MemoryCronStore implements CronStore {
  private readonly crons = new Map<string, CronRecord>();

  async createCron(cron: CronRecord): Promise<CronRecord> {
    if (this.crons.has(cron.cronId)) throw new KeelError("KEEL_ERR_STORE_CONFLICT", `cron \`${cron.cronId}\` already exists`);
    this.crons.set(cron.cronId, copy(cron));
    return copy(cron);
  }

  async getCron(cronId: string): Promise<CronRecord | null> {
    const cron = this.crons.get(cronId);
    return cron ? copy(cron) : null;
  }

  async updateCron(cronId: string, patch: CronPatch, now: string): Promise<CronRecord | null> {
    const cron = this.crons.get(cronId);
    if (!cron) return null;
    const updated: CronRecord = { ...cron, ...structuredClone(patch), updatedAt: now };
    this.crons.set(cronId, updated);
    return copy(updated);
  }

  async deleteCron(cronId: string): Promise<boolean> {
    return this.crons.delete(cronId);
  }

  async searchCrons(search: CronSearch): Promise<CronRecord[]> {
    const sign = search.sortOrder === "asc" ? 1 : -1;
    const key = (cron: CronRecord): string => (cron[search.sortBy] as string | null) ?? "";
    return this.matching(search)
      .sort((a, b) => sign * (compare(key(a), key(b)) || compare(a.cronId, b.cronId)))
      .slice(search.offset, search.offset + search.limit)
      .map(copy);
  }

  async countCrons(filter: CronFilter): Promise<number> {
    return this.matching(filter).length;
  }

  async dueCrons(now: string, limit: number): Promise<CronRecord[]> {
    return [...this.crons.values()]
      .filter((cron) => cron.enabled && cron.nextRunAt !== null && cron.nextRunAt <= now)
      .sort((a, b) => compare(a.nextRunAt!, b.nextRunAt!) || compare(a.cronId, b.cronId))
      .slice(0, limit)
      .map(copy);
  }

  async advanceCron(cronId: string, due: string, next: string | null, now: string): Promise<boolean> {
    const cron = this.crons.get(cronId);
    if (!cron || !cron.enabled || cron.nextRunAt === null || cron.nextRunAt !== due) return false;
    this.crons.set(cronId, { ...cron, nextRunAt: next, updatedAt: now });
    return true;
  }

  private matching(filter: CronFilter): CronRecord[] {
    return [...this.crons.values()].filter(
      (cron) =>
        cron.owner === filter.owner &&
        (filter.assistantId === undefined || cron.assistantId === filter.assistantId) &&
        (filter.threadId === undefined || cron.threadId === filter.threadId) &&
        (filter.enabled === undefined || cron.enabled === filter.enabled) &&
        Object.entries(filter.metadata ?? {}).every(([k, v]) => v === undefined || JSON.stringify(cron.metadata[k]) === JSON.stringify(v)),
    );
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
