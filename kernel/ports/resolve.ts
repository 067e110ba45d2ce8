import type { Composition } from "../compose/types.js";
import { KeelError } from "../errors.js";

/** The plugin of the composition that provides `port` (compose allows at most one), or undefined. */
export function portProvider(composition: Composition, port: string) {
  for (const name of composition.order) {
    const member = composition.plugins.get(name)!;
    if (member.plugin.services?.[port]) return member;
  }
  return undefined;
}

/**
 * Build `port` from its provider's factory and validated options. Throws
 * `KEEL_ERR_COMPOSE_MISSING_PORT` when no plugin of the composition provides it.
 * A host that opens services at start may get a Promise from a factory: it awaits it.
 */
export function buildPort<T>(composition: Composition, port: string): T {
  const provider = portProvider(composition, port);
  if (!provider) {
    throw new KeelError("KEEL_ERR_COMPOSE_MISSING_PORT", `no plugin in stack \`${composition.stackName}\` provides the port \`${port}\`; add a service plugin that provides it`);
  }
  return provider.plugin.services![port]!(provider.config) as T;
}
