/**
 * PostgreSQL unreachable: a call whose connection was refused, dropped (`pg_terminate_backend`,
 * a restart, a cut network) or could not be acquired fails with KEEL_ERR_STORE_UNAVAILABLE
 * (the gateway answers 503: retry), with the driver's message, instead of an anonymous
 * driver error (a 500). Only that call fails; the pool reconnects on the next one.
 */
import { ConnectionException } from "@mikro-orm/core";
import { KeelError } from "../../kernel/errors.js";

/** Socket errors, and SQLSTATE classes 08 (connection exception) and 57P (operator intervention: admin shutdown, crash shutdown, cannot connect now). */
const CONNECTION_CODES = /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN|08\w{3}|57P0[1-3])$/;
const CONNECTION_MESSAGES = /Connection terminated|Client has encountered a connection error|Timeout acquiring a connection|the database system is (starting up|shutting down)|terminating connection/i;

export function isConnectionError(error: unknown): boolean {
  if (error instanceof ConnectionException) return true;
  if (error === null || typeof error !== "object") return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  return (typeof code === "string" && CONNECTION_CODES.test(code)) || (typeof message === "string" && CONNECTION_MESSAGES.test(message));
}

/** Replaces the named async methods of `target` with ones that turn a connection error into KEEL_ERR_STORE_UNAVAILABLE. */
export function reportUnreachable<T extends object>(target: T, methods: readonly (keyof T & string)[]): void {
  for (const name of methods) {
    const original = target[name] as unknown as (...args: unknown[]) => Promise<unknown>;
    if (typeof original !== "function") continue;
    const bound = original.bind(target);
    Object.defineProperty(target, name, {
      value: (...args: unknown[]) =>
        bound(...args).catch((error: unknown) => {
          if (!isConnectionError(error)) throw error;
          throw new KeelError("KEEL_ERR_STORE_UNAVAILABLE", `the run store's database is unreachable: ${(error as Error).message}`, { cause: error });
        }),
      writable: true,
      configurable: true,
    });
  }
}
