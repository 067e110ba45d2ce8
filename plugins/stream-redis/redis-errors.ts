import { isKeelError, KeelError } from "../../kernel/errors.js";

/**
 * A failed Redis command as `KEEL_ERR_STREAM_UNAVAILABLE` (the gateway answers 503 with
 * it); a KeelError passes through unchanged.
 */
export function redisUnavailable(what: string, error: unknown): KeelError {
  if (isKeelError(error)) return error as KeelError;
  const reason = error instanceof Error ? error.message : String(error);
  return new KeelError("KEEL_ERR_STREAM_UNAVAILABLE", `${what}: Redis is unavailable (${reason})`, { cause: error });
}

/** The promise's value, its failure as `KEEL_ERR_STREAM_UNAVAILABLE`. */
export async function orUnavailable<T>(what: string, promise: Promise<T>): Promise<T> {
  try {
    return await promise;
  } catch (error) {
    throw redisUnavailable(what, error);
  }
}
