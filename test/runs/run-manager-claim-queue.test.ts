import { describe, expect, it } from "vitest";
import { MemoryRunStore } from "../../kernel/runs/memory-store.js";
import { describeClaimQueueManagers } from "./claim-queue-managers.js";
import { setup } from "./run-manager-harness.js";

describeClaimQueueManagers("memory", async () => {
  const store = new MemoryRunStore();
  return { stores: [store, store], dispose: async () => undefined };
});

describe("RunManager option jobs", () => {
  it.each([0, -1, 1.5, Number.NaN])("refuses jobs = %s", async (jobs) => {
    await expect(setup({ jobs })).rejects.toMatchObject({ code: "KEEL_ERR_CONFIG_INVALID", pointer: "/jobs" });
  });

  it("refuses a due time that is not an instant", async () => {
    const s = await setup();
    const thread = await s.thread();
    await expect(s.manager.createOrReject(thread, { assistantId: "lead", input: "x" }, { user: "alice", dueAt: "tomorrow" })).rejects.toMatchObject({ code: "KEEL_ERR_CONFIG_INVALID" });
    expect(await s.store.activeRuns(thread)).toEqual([]);
    await s.manager.shutdown();
  });
});
