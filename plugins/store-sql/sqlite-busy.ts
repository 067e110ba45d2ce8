/**
 * SQLite busy/locked: a writer that waited `busy_timeout` (5 s) for another connection's
 * write lock and still did not get it fails with SQLITE_BUSY (or SQLITE_LOCKED); MikroORM
 * turns that into a LockWaitTimeoutException ("database is locked"). Nothing was written
 * then (the statement or the `BEGIN IMMEDIATE` failed before any change), so the call is
 * retried a few times after a short pause; only when every attempt found the lock taken
 * does the error reach the caller, which fails that one call — never the process.
 */

/** Retries after the first busy failure. */
export const SQLITE_BUSY_RETRIES = 2;
/** Pause before each retry (ms): the event loop runs meanwhile, so an in-process lock holder can finish. */
export const SQLITE_BUSY_RETRY_DELAY_MS = 100;

/** Whether `error` is SQLite's "the lock is taken" (better-sqlite3's SqliteError or MikroORM's wrapper of it). */
export function isSqliteBusy(error: unknown): boolean {
  if (error === null || typeof error !== "object") return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string" && (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED"))) return true;
  const message = (error as { message?: unknown }).message;
  return typeof message === "string" && /database (table )?is locked/.test(message);
}

/**
 * `work()`, retried while it fails busy. The first attempt runs synchronously inside this
 * call (so a synchronous transaction keeps its place in call order); a result that is not
 * a promise is returned as is when it succeeds the first time.
 */
export function retryWhileBusy<T>(work: () => T, retries = SQLITE_BUSY_RETRIES, delayMs = SQLITE_BUSY_RETRY_DELAY_MS): T | Promise<Awaited<T>> {
  const again = async (left: number, error: unknown): Promise<Awaited<T>> => {
    if (left <= 0 || !isSqliteBusy(error)) throw error;
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    try {
      return await work();
    } catch (next) {
      return again(left - 1, next);
    }
  };
  let result: T;
  try {
    result = work();
  } catch (error) {
    return again(retries, error);
  }
  if (result instanceof Promise) return result.catch((error: unknown) => again(retries, error)) as Promise<Awaited<T>>;
  return result;
}

/** Replaces the named async methods of `target` (own properties shadowing the prototype's) with ones retried while busy. */
export function retryMethodsWhileBusy<T extends object>(target: T, methods: readonly (keyof T & string)[]): void {
  for (const name of methods) {
    const original = target[name] as unknown as (...args: unknown[]) => Promise<unknown>;
    if (typeof original !== "function") continue;
    const bound = original.bind(target);
    Object.defineProperty(target, name, { value: (...args: unknown[]) => Promise.resolve(retryWhileBusy(() => bound(...args))), writable: true, configurable: true });
  }
}
