import { KeelError } from "../../kernel/errors.js";
import type { HookContext } from "../../kernel/plugin/types.js";

export interface SubagentsOptions {
  maxTurns: number;
  timeoutSeconds: number;
}

export function readSubagentsOptions(config: Readonly<Record<string, unknown>>): SubagentsOptions {
  const maxTurns = typeof config.maxTurns === "number" && config.maxTurns >= 1 ? Math.floor(config.maxTurns) : 150;
  const timeoutSeconds = typeof config.timeoutSeconds === "number" && config.timeoutSeconds > 0 ? config.timeoutSeconds : 1800;
  return { maxTurns, timeoutSeconds };
}

/**
 * A port when some plugin (or the host) provides it, else undefined: delegation works
 * without receipts, acceptance or batch-leasing, and only checks less.
 */
export function optionalPort<T>(ctx: Pick<HookContext, "port">, name: string): T | undefined {
  try {
    return ctx.port<T>(name);
  } catch (error) {
    if (error instanceof KeelError && error.code === "KEEL_ERR_COMPOSE_MISSING_PORT") return undefined;
    throw error;
  }
}
