import { describe, expect, it } from "vitest";
import { checkHistory, leasesOf, summaryLine, type Answer, type AuditEvent, type History, type StoreView } from "../nemesis/history.js";
import { parseSse } from "../nemesis/recorder.js";

/**
 * The nemesis history checker on synthetic histories: a clean one passes, and each kind
 * of violation is reported (the suite's own negative control needs helper-made faults in
 * the product; these do not).
 */
let nextId = 1;
function answer(partial: Partial<Answer> & Pick<Answer, "op" | "sentAt">): Answer {
  return { id: nextId++, scenario: "s", worker: "A", method: "GET", path: "/", endedAt: partial.sentAt + 10, ...partial };
}

let seq = 0;
const runRow = (runId: string, threadId: string, status: string, epoch: number, oldStatus?: string): AuditEvent => ({
  seq: ++seq,
  at: seq,
  table: "keel_runs",
  op: oldStatus === undefined ? "INSERT" : "UPDATE",
  threadId,
  runId,
  epoch,
  status,
  oldStatus: oldStatus ?? null,
});
const write = (runId: string | null, threadId: string, epoch: number | null, table = "keel_ckpt_checkpoints"): AuditEvent => ({ seq: ++seq, at: seq, table, op: "INSERT", threadId, runId, epoch });

/** Two runs one after the other on thread t1, each writing under its lease; both answered and stored. */
function cleanCase(): { history: History; store: StoreView } {
  seq = 0;
  const audit = [
    runRow("r1", "t1", "pending", 0),
    runRow("r1", "t1", "running", 1, "pending"),
    write("r1", "t1", 1),
    write("r1", "t1", 1),
    runRow("r1", "t1", "success", 1, "running"),
    runRow("r2", "t1", "pending", 0),
    runRow("r2", "t1", "running", 1, "pending"),
    write("r2", "t1", 1),
    runRow("r2", "t1", "success", 1, "running"),
  ];
  const history: History = {
    answers: [
      answer({ op: "create_thread", threadId: "t1", status: 200, sentAt: 0 }),
      answer({ op: "create_run", threadId: "t1", runId: "r1", status: 200, body: { run_id: "r1" }, sentAt: 1 }),
      answer({ op: "join", threadId: "t1", runId: "r1", status: 200, body: { messages: [] }, sentAt: 2 }),
      answer({ op: "wait", threadId: "t1", runId: "r2", status: 200, body: { messages: [] }, sentAt: 30 }),
      answer({ op: "stream", threadId: "t1", runId: "r2", status: 200, events: [{ event: "metadata", data: {} }, { event: "end", data: null }], sentAt: 31 }),
    ],
    faults: [],
  };
  const store: StoreView = {
    runs: [
      { runId: "r1", threadId: "t1", status: "success", epoch: 1 },
      { runId: "r2", threadId: "t1", status: "success", epoch: 1 },
    ],
    audit,
    leftovers: {},
  };
  return { history, store };
}

const kinds = (history: History, store: StoreView) => checkHistory(history, store).violations.map((v) => v.kind);

describe("nemesis history checker", () => {
  it("passes a clean history and counts its figures", () => {
    const { history, store } = cleanCase();
    const result = checkHistory(history, store);
    expect(result.violations).toEqual([]);
    expect(result.figures).toEqual({ answers: 5, runs: 2, faults: 0, writes: 3, leases: 2, lost: 0 });
    expect(summaryLine("clean", result)).toBe("nemesis clean: faults 0, runs 2, answers checked 5, writes checked 3, leases 2, lost 0, violations 0");
  });

  it("derives leases from the audit: a claim until the run's row leaves running", () => {
    const { store } = cleanCase();
    expect(leasesOf(store.audit).map((l) => [l.runId, l.epoch, l.claimedSeq, l.endedSeq])).toEqual([
      ["r1", 1, 2, 5],
      ["r2", 1, 7, 9],
    ]);
  });

  it("reports an admitted run the store does not hold, and a /wait without __error__ for a run stored as error", () => {
    const { history, store } = cleanCase();
    store.runs = store.runs.filter((r) => r.runId !== "r1");
    store.runs.push({ runId: "r2", threadId: "t1", status: "error", epoch: 1 });
    store.runs = store.runs.filter((r, i, all) => all.findLastIndex((x) => x.runId === r.runId) === i);
    const result = checkHistory(history, store);
    expect(result.violations.filter((v) => v.kind === "unstored_success").map((v) => v.runId)).toEqual(["r1", "r1", "r2"]);
    expect(result.figures.lost).toBe(3);
  });

  it("accepts a /wait answered with __error__ for a failed run", () => {
    const { history, store } = cleanCase();
    store.runs[1]!.status = "error";
    history.answers[3]!.body = { __error__: { error: "lease_expired", message: "…" } };
    expect(kinds(history, store)).toEqual([]);
  });

  it("reports a GET run that said success for a run the store ended interrupted", () => {
    const { history, store } = cleanCase();
    history.answers.push(answer({ op: "get_run", threadId: "t1", runId: "r1", status: 200, body: { status: "success" }, sentAt: 40 }));
    store.runs[0]!.status = "interrupted";
    expect(kinds(history, store)).toEqual(["unstored_success"]);
  });

  it("reports two runs holding a thread at once", () => {
    seq = 0;
    const { history, store } = cleanCase();
    seq = 0;
    store.audit = [runRow("r1", "t1", "running", 1, "pending"), runRow("r2", "t1", "running", 1, "pending"), runRow("r1", "t1", "success", 1, "running"), runRow("r2", "t1", "success", 1, "running")];
    expect(kinds(history, store)).toEqual(["overlapping_runs"]);
  });

  it("reports a thread left with two running runs", () => {
    const { history, store } = cleanCase();
    store.runs = store.runs.map((r) => ({ ...r, status: "running" }));
    expect(kinds(history, store)).toContain("overlapping_runs");
  });

  it("reports a write under a lease after the reaper ended it (a paused worker resumed)", () => {
    const { history, store } = cleanCase();
    seq = 0;
    store.runs[0]!.status = "error";
    history.answers.splice(2, 1); // no join answer for r1
    store.audit = [runRow("r1", "t1", "running", 1, "pending"), write("r1", "t1", 1), runRow("r1", "t1", "error", 1, "running"), write("r1", "t1", 1)];
    const found = checkHistory(history, store).violations;
    expect(found.map((v) => v.kind)).toEqual(["write_after_fence"]);
    expect(found[0]!.message).toBe("keel_ckpt_checkpoints write #4 under run r1 epoch 1 after that lease ended at audit #3");
  });

  it("reports a write of a lease after the first write of the next lease on the thread", () => {
    const { history, store } = cleanCase();
    seq = 100;
    // r1 never ends in the audit (its row's change is lost), r2 claims and writes, then r1 writes again.
    store.audit = store.audit.filter((e) => !(e.runId === "r1" && e.status === "success"));
    store.audit.push(write("r1", "t1", 1));
    const found = checkHistory(history, store).violations;
    expect(found.map((v) => v.kind)).toEqual(["overlapping_runs", "write_after_fence"]);
    expect(found[1]!.message).toMatch(/follows write #\d+ of the later lease r2/);
  });

  it("reports a write under a lease the store never granted; unfenced writes are only counted", () => {
    const { history, store } = cleanCase();
    store.audit.push(write("r9", "t1", 3), write(null, "t1", null));
    const result = checkHistory(history, store);
    expect(result.violations.map((v) => v.kind)).toEqual(["write_after_fence"]);
    expect(result.figures.writes).toBe(5);
  });

  it("reports a request with no answer and a stream without end, unless its worker was killed meanwhile or the client left", () => {
    const { history, store } = cleanCase();
    history.answers.push(answer({ op: "join", threadId: "t1", runId: "r1", worker: "B", sentAt: 50, error: "socket hang up" }));
    history.answers.push(answer({ op: "stream", threadId: "t1", runId: "r1", worker: "B", status: 200, events: [{ event: "metadata", data: {} }], sentAt: 51 }));
    expect(kinds(history, store)).toEqual(["unanswered_waiter", "unanswered_waiter"]);
    history.faults.push({ scenario: "s", kind: "worker_kill", target: "B", at: 55, until: 70 });
    expect(kinds(history, store)).toEqual([]);
    history.faults[0]!.target = "C";
    history.answers.at(-1)!.abandoned = true;
    expect(kinds(history, store)).toEqual(["unanswered_waiter"]);
    // A SIGTERM (graceful) excuses nothing: the worker must answer.
    history.faults.push({ scenario: "s", kind: "worker_term", target: "B", at: 55 });
    expect(kinds(history, store)).toEqual(["unanswered_waiter"]);
  });

  it("reports a run left pending or running at the end", () => {
    const { history, store } = cleanCase();
    store.runs[1]!.status = "pending";
    expect(kinds(history, store)).toEqual(["stranded_run"]);
  });

  it("reports a read answered with data after the delete was answered, and what the purge left", () => {
    const { history, store } = cleanCase();
    history.answers.push(answer({ op: "delete_thread", threadId: "t1", status: 204, sentAt: 100 }));
    history.answers.push(answer({ op: "read_thread", threadId: "t1", status: 200, sentAt: 200 }));
    history.answers.push(answer({ op: "get_run", threadId: "t1", runId: "r1", status: 404, sentAt: 201 }));
    store.leftovers = { t1: { keel_runs: 0, keel_ckpt_checkpoints: 3, workspace: 1 } };
    const found = checkHistory(history, store).violations;
    expect(found.map((v) => v.kind)).toEqual(["deleted_thread_readable", "deleted_thread_readable"]);
    expect(found[1]!.message).toBe("deleted thread t1 still has 3 in keel_ckpt_checkpoints, 1 in workspace");
  });

  it("a thread re-created after its delete is readable again, and its old runs are not claims of the new one", () => {
    const { history, store } = cleanCase();
    history.answers.push(answer({ op: "delete_thread", threadId: "t1", status: 204, sentAt: 100 }));
    history.answers.push(answer({ op: "create_thread", threadId: "t1", status: 200, sentAt: 150 }));
    history.answers.push(answer({ op: "read_thread", threadId: "t1", status: 200, sentAt: 200 }));
    store.leftovers = { t1: { keel_ckpt_checkpoints: 3 } };
    expect(kinds(history, store)).toEqual([]);
    // The runs admitted before the delete are purged: not a lost success, even though the id lives again.
    store.runs = [];
    expect(kinds(history, store)).toEqual([]);
    history.answers.push(answer({ op: "create_run", threadId: "t1", runId: "r3", status: 200, sentAt: 300 }));
    expect(kinds(history, store)).toEqual(["unstored_success"]);
  });
});

describe("nemesis recorder: SSE parsing", () => {
  it("reads event, id and JSON data of each block", () => {
    expect(parseSse('event: metadata\ndata: {"run_id":"r"}\nid: 1-0\n\nevent: end\ndata: null\n\n: heartbeat\n\n')).toEqual([
      { event: "metadata", data: { run_id: "r" }, id: "1-0" },
      { event: "end", data: null },
    ]);
  });
});
