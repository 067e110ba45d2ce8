/**
 * The run's lease fence as plugins see it (`ctx.fence` of tools and hooks): the epoch
 * every write of the run is made under, and a check that throws once this worker no
 * longer holds the lease. A plugin that writes anything outside the checkpointer (files,
 * a database of its own) calls `assertHeld` right before each write and records `epoch`
 * with it, so a worker that lost its lease changes nothing and every write says which
 * lease it was made under (kernel/runs/README.md, "Fencing").
 */
import { KeelError } from "../errors.js";

export interface RunFence {
  /** The run whose lease this is (a delegated child shares its parent's run). */
  readonly runId: string;
  /** The run's lease epoch (grows on every claim). */
  readonly epoch: number;
  /** A delegated child: the epoch of its own delegation lease (lease@1). Absent for the lead. */
  readonly leaseEpoch?: number;
  /** Whether the lease is still held locally (false once lost or past its local deadline). */
  readonly held: boolean;
  /** Throws `KEEL_ERR_LEASE_FENCED` (naming `what`) unless the lease is still held. */
  assertHeld(what?: string): void;
  /**
   * `assertHeld`, then the run store's lease row is read and must still show this owner at
   * this epoch, running and unexpired (rejects `KEEL_ERR_LEASE_FENCED`, and the lease is lost
   * for good). For writes no store transaction can guard (workspace files): it catches a
   * worker whose clock or pause hid the loss from the local check. Absent: use `assertHeld`.
   */
  confirm?(what?: string): Promise<void>;
  /** The lease holder's clock (ms), for checks made elsewhere (the checkpointer's transaction). */
  now?(): number;
}

/** The env switch that turns fencing off; test-only (see `fencingDisabled`). */
export const UNSAFE_NO_FENCING_ENV = "KEEL_TEST_UNSAFE_NO_FENCING";
/** The explicit opt-in that allows the switch outside `NODE_ENV=test`. */
export const UNSAFE_NO_FENCING_ALLOW_ENV = "KEEL_TEST_ALLOW_UNSAFE";

/**
 * True when `KEEL_TEST_UNSAFE_NO_FENCING=1`: no write is refused for a lost lease (writes
 * still record their epoch), so a history checker's negative control can show the
 * violations fencing prevents. Test-only: refused (`KEEL_ERR_CONFIG_INVALID`) unless
 * `NODE_ENV=test` or `KEEL_TEST_ALLOW_UNSAFE=1`. Read on every call (cheap), so a test can
 * set and unset it.
 */
export function fencingDisabled(env: NodeJS.ProcessEnv = process.env): boolean {
  const value = env[UNSAFE_NO_FENCING_ENV];
  if (value === undefined || value === "" || value === "0") return false;
  if (value !== "1") throw new KeelError("KEEL_ERR_CONFIG_INVALID", `\`${UNSAFE_NO_FENCING_ENV}\` must be \`1\` or unset, got \`${value}\``);
  if (env.NODE_ENV !== "test" && env[UNSAFE_NO_FENCING_ALLOW_ENV] !== "1") {
    throw new KeelError(
      "KEEL_ERR_CONFIG_INVALID",
      `\`${UNSAFE_NO_FENCING_ENV}=1\` turns lease fencing off and is for tests only: it is refused unless NODE_ENV=test or ${UNSAFE_NO_FENCING_ALLOW_ENV}=1`,
    );
  }
  return true;
}

/** The error a fenced write throws. */
export function leaseFenced(runId: string, epoch: number, what: string, why: string): KeelError {
  return new KeelError("KEEL_ERR_LEASE_FENCED", `${what} of run ${runId} under epoch ${epoch} refused: ${why}; nothing was written`);
}

/** A fence that always holds locally (the caller gave no local check; a store may still check). */
export function unwatchedFence(fence: { runId: string; epoch: number; leaseEpoch?: number; now?: () => number }): RunFence {
  return {
    runId: fence.runId,
    epoch: fence.epoch,
    ...(fence.leaseEpoch === undefined ? {} : { leaseEpoch: fence.leaseEpoch }),
    ...(fence.now ? { now: fence.now } : {}),
    held: true,
    assertHeld: () => undefined,
  };
}

/** The same fence seen by a delegated child: the parent's lease, plus the child's own lease epoch. */
export function childFence(parent: RunFence, leaseEpoch: number | undefined): RunFence {
  if (leaseEpoch === undefined) return parent;
  return {
    runId: parent.runId,
    epoch: parent.epoch,
    leaseEpoch,
    get held() {
      return parent.held;
    },
    assertHeld: (what) => parent.assertHeld(what),
    ...(parent.confirm ? { confirm: (what?: string) => parent.confirm!(what) } : {}),
    ...(parent.now ? { now: () => parent.now!() } : {}),
  };
}
