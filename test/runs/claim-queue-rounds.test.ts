import { describe, expect, it } from "vitest";
import { ClaimQueue } from "../../kernel/runs/claim-queue.js";
import type { ManagerContext } from "../../kernel/runs/manager-context.js";
import type { RunRecord } from "../../kernel/runs/types.js";
import { until } from "./run-manager-harness.js";

/**
 * A fill that others keep asking for ends after a bounded number of rounds for the callers
 * that joined it. Before, every admission of a storm awaited one fill that each new
 * admission extended by another round (one claim query each), so admissions answered only
 * once the storm was over — or after the client gave up (nemesis concurrent-interrupt).
 */
describe("ClaimQueue.fill under a storm of asks", () => {
  it("resolves the callers that joined after at most two rounds; a later ask goes on in a new fill", async () => {
    const claims: Array<(run: RunRecord | null) => void> = [];
    const ctx = {
      store: { claimDue: () => new Promise<RunRecord | null>((resolve) => claims.push(resolve)) },
      workerId: "w",
      leaseTtlMs: 30_000,
      clock: { now: () => 0 },
      log: () => undefined,
    } as unknown as ManagerContext;
    const queue = new ClaimQueue(ctx, 4, { running: () => 0, launch: () => undefined, stopped: () => false });

    let done = false;
    const first = queue.fill().then((started) => ((done = true), started));
    await until(() => claims.length === 1, "the first claim");
    void queue.fill(); // asked during round 1
    claims[0]!(null);
    await until(() => claims.length === 2, "round 2");
    void queue.fill(); // asked during round 2
    claims[1]!(null);
    await until(() => claims.length === 3, "the claim of the next fill");
    await new Promise((resolve) => setImmediate(resolve));
    // Before: the first fill went on into a third round and its callers waited for it too.
    expect(done).toBe(true);
    claims[2]!(null);
    expect(await first).toEqual([]);
  });
});
