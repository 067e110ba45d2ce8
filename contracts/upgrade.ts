import { contractError } from "./errors.js";
import { MIGRATIONS, type Migration } from "./migrations.js";
import { assertValid, contracts, getContract, parseContractRef, type ContractRef } from "./registry.js";

function refOf(ref: string | ContractRef): ContractRef {
  const parsed = typeof ref === "string" ? parseContractRef(ref) : ref;
  getContract(parsed.name, parsed.version);
  return parsed;
}

/** The newest published version of a contract. */
export function latestVersion(name: string): number {
  const versions = contracts.filter((c) => c.name === name).map((c) => c.version);
  if (versions.length === 0) getContract(name, 1);
  return Math.max(...versions);
}

/**
 * The steps from `from` to `to` (either direction), each the migration that jumps furthest
 * without passing `to`. Steps down need a `project`.
 */
function chain(name: string, from: number, to: number): Migration[] {
  const steps: Migration[] = [];
  let at = from;
  while (at !== to) {
    const up = to > at;
    const candidates = MIGRATIONS.filter((m) =>
      m.contract === name && (up ? m.from === at && m.to <= to : m.to === at && m.from >= to && m.project !== undefined),
    );
    const step = candidates.sort((a, b) => (up ? b.to - a.to : a.from - b.from))[0];
    if (!step) {
      throw contractError(
        "KEEL_ERR_CONTRACT_NO_MIGRATION",
        `no registered migration ${up ? "upgrades" : "projects"} \`${name}@${at}\` ${up ? "towards" : "down to"} \`${name}@${to}\``,
      );
    }
    steps.push(step);
    at = up ? step.to : step.from;
  }
  return steps;
}

/**
 * Read a payload written under an older version as a newer one (default: the newest).
 * The payload is validated as a tolerant reader of `ref` first and the result against
 * the target, so an invalid payload fails closed (KEEL_ERR_CONTRACT_VIOLATION).
 *
 * @example
 * upgrade("status@1", { status: "completed", resultBrief: "Done." });
 * // { contract: "status", version: 2, status: "succeeded", stopReasons: [], text: "Done." }
 */
export function upgrade<T = unknown>(ref: string | ContractRef, payload: unknown, toVersion?: number): T {
  const from = refOf(ref);
  const to = toVersion ?? latestVersion(from.name);
  getContract(from.name, to);
  if (to < from.version) {
    throw contractError("KEEL_ERR_CONTRACT_NO_MIGRATION", `\`upgrade\` goes up, but \`${from.name}@${to}\` is older than \`${from.name}@${from.version}\`; use \`project\``);
  }
  let value = assertValid(from, payload, { tolerant: true });
  for (const step of chain(from.name, from.version, to)) value = step.upgrade(value);
  return assertValid<T>({ name: from.name, version: to }, value);
}

/**
 * The view of a payload for consumers of an older version, through the registered
 * `project` steps. Validated on both ends, like `upgrade`.
 *
 * @example
 * project("status@2", outcome, 1); // { status: "completed", stopReason: "turn_capped", resultBrief: "…" }
 */
export function project<T = unknown>(ref: string | ContractRef, payload: unknown, toVersion: number): T {
  const from = refOf(ref);
  getContract(from.name, toVersion);
  if (toVersion > from.version) {
    throw contractError("KEEL_ERR_CONTRACT_NO_MIGRATION", `\`project\` goes down, but \`${from.name}@${toVersion}\` is newer than \`${from.name}@${from.version}\`; use \`upgrade\``);
  }
  let value = assertValid(from, payload, { tolerant: true });
  for (const step of chain(from.name, from.version, toVersion)) value = step.project!(value);
  return assertValid<T>({ name: from.name, version: toVersion }, value);
}
