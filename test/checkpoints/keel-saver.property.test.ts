/**
 * For random runs — channel updates with message appends, overwrites, replacements and
 * windows, channels appearing and disappearing, forks from older checkpoints, pending
 * writes (special ones included), threads deleted, a small `snapshotEvery` and a small
 * head cache — every checkpoint and every `list` entry read back from Keel's saver
 * deep-equals what LangGraph's MemorySaver returns for the same calls.
 */
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { MemorySaver, uuid6, type BaseCheckpointSaver, type Checkpoint, type CheckpointTuple } from "@langchain/langgraph-checkpoint";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { backends } from "./backends.js";

type Edit =
  | { ch: "messages"; op: "append"; n: number }
  | { ch: "messages"; op: "overwrite"; n: number }
  | { ch: "messages"; op: "replace-last" }
  | { ch: "messages"; op: "window"; keep: number }
  | { ch: "count"; value: number }
  | { ch: "obj"; value: { a: number; s: string } }
  | { ch: "branch:to:tools"; op: "set" | "unset" }
  | { ch: "list"; op: "append" | "reset"; value: number };

type Op =
  | { kind: "put"; thread: number; fork: number | null; edits: Edit[]; tag: "a" | "b" }
  | { kind: "writes"; thread: number; pick: number; task: "task-1" | "task-2"; path: "" | "~a" | "~b"; writes: Array<["messages" | "count" | "__error__" | "__interrupt__", number]> }
  | { kind: "delete"; thread: number };

const edit: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({ ch: fc.constant("messages" as const), op: fc.constant("append" as const), n: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ ch: fc.constant("messages" as const), op: fc.constant("append" as const), n: fc.integer({ min: 1, max: 2 }) }),
  fc.record({ ch: fc.constant("messages" as const), op: fc.constant("overwrite" as const), n: fc.integer({ min: 0, max: 3 }) }),
  fc.record({ ch: fc.constant("messages" as const), op: fc.constant("replace-last" as const) }),
  fc.record({ ch: fc.constant("messages" as const), op: fc.constant("window" as const), keep: fc.integer({ min: 1, max: 4 }) }),
  fc.record({ ch: fc.constant("count" as const), value: fc.integer() }),
  fc.record({ ch: fc.constant("obj" as const), value: fc.record({ a: fc.integer(), s: fc.string({ maxLength: 4 }) }) }),
  fc.record({ ch: fc.constant("branch:to:tools" as const), op: fc.constantFrom("set" as const, "unset" as const) }),
  fc.record({ ch: fc.constant("list" as const), op: fc.constantFrom("append" as const, "reset" as const), value: fc.integer({ min: 0, max: 9 }) }),
);

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant("put" as const), thread: fc.integer({ min: 0, max: 1 }), fork: fc.option(fc.nat(), { freq: 4 }), edits: fc.array(edit, { maxLength: 3 }), tag: fc.constantFrom("a" as const, "b" as const) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("writes" as const),
      thread: fc.integer({ min: 0, max: 1 }),
      pick: fc.nat(),
      task: fc.constantFrom("task-1" as const, "task-2" as const),
      path: fc.constantFrom("" as const, "~a" as const, "~b" as const),
      writes: fc.array(fc.tuple(fc.constantFrom("messages" as const, "count" as const, "__error__" as const, "__interrupt__" as const), fc.integer({ min: 0, max: 99 })), { minLength: 1, maxLength: 3 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("delete" as const), thread: fc.integer({ min: 0, max: 1 }) }) },
);

let serial = 0;
const message = (kind: "human" | "ai"): BaseMessage => {
  const id = `m${++serial}`;
  return kind === "human" ? new HumanMessage({ content: `hello ${id}`, id }) : new AIMessage({ content: `answer ${id}`, id, tool_calls: serial % 3 === 0 ? [{ id: `call-${id}`, name: "noop", args: { n: serial } }] : [] });
};

/** The values the graph would hold after `edits`: new values where edited, the parent's objects elsewhere (as LangGraph's reducers leave them). */
function applyEdits(values: Record<string, unknown>, edits: Edit[]): Record<string, unknown> {
  const next = { ...values };
  for (const e of edits) {
    if (e.ch === "messages") {
      const current = (next.messages as BaseMessage[] | undefined) ?? [];
      if (e.op === "append") next.messages = [...current, ...Array.from({ length: e.n }, (_, i) => message(i % 2 ? "human" : "ai"))];
      if (e.op === "overwrite") next.messages = Array.from({ length: e.n }, () => message("human"));
      if (e.op === "replace-last" && current.length > 0) next.messages = [...current.slice(0, -1), new AIMessage({ content: "replaced", id: current.at(-1)!.id! })];
      if (e.op === "window") next.messages = [...current.slice(-e.keep), message("ai")];
    } else if (e.ch === "count") next.count = e.value;
    else if (e.ch === "obj") next.obj = { ...e.value };
    else if (e.ch === "branch:to:tools") {
      if (e.op === "set") next[e.ch] = null;
      else delete next[e.ch];
    } else if (e.ch === "list") next.list = e.op === "reset" ? [e.value] : [...((next.list as number[] | undefined) ?? []), e.value];
  }
  return next;
}

interface Live {
  checkpoint: Checkpoint;
  thread: string;
}

/** Runs `ops` on every saver given, with the same arguments (the same objects). */
async function drive(savers: BaseCheckpointSaver[], ops: Op[]): Promise<string[]> {
  const byThread: Live[][] = [[], []];
  const threads = ["thread-0", "thread-1"];
  for (const o of ops) {
    const lives = byThread[o.thread]!;
    if (o.kind === "put") {
      const parent = o.fork === null || lives.length === 0 ? lives.at(-1) : lives[o.fork % lives.length];
      const values = applyEdits(parent?.checkpoint.channel_values ?? {}, o.edits);
      const versions: Record<string, number> = { ...(parent?.checkpoint.channel_versions ?? {}) } as Record<string, number>;
      for (const e of o.edits) versions[e.ch] = (versions[e.ch] ?? 0) + 1;
      const checkpoint: Checkpoint = { v: 4, id: uuid6(-1), ts: new Date(2030, 0, 1, 0, 0, lives.length).toISOString(), channel_values: values, channel_versions: versions, versions_seen: { agent: { ...versions } } };
      const metadata = { source: "loop" as const, step: lives.length, parents: {}, tag: o.tag };
      const config = { configurable: { thread_id: threads[o.thread], checkpoint_ns: "", ...(parent ? { checkpoint_id: parent.checkpoint.id } : {}) } };
      for (const saver of savers) await saver.put(config, checkpoint, metadata, versions);
      lives.push({ checkpoint, thread: threads[o.thread]! });
    } else if (o.kind === "writes") {
      if (lives.length === 0) continue;
      const target = lives[o.pick % lives.length]!;
      const writes = o.writes.map(([channel, n]) => [channel, channel === "messages" ? [new AIMessage({ content: `w${n}`, id: `w${n}` })] : { n }] as [string, unknown]);
      const config = { configurable: { thread_id: target.thread, checkpoint_ns: "", checkpoint_id: target.checkpoint.id } };
      for (const saver of savers) await saver.putWrites(config, writes, o.task, o.path);
    } else {
      for (const saver of savers) await saver.deleteThread(threads[o.thread]!);
      byThread[o.thread] = [];
    }
  }
  return byThread.flatMap((lives) => lives.map((l) => l.checkpoint.id));
}

/** What a read should agree on (configs compared by their ids; MemorySaver echoes the caller's config). */
function comparable(tuple: CheckpointTuple | undefined) {
  if (!tuple) return undefined;
  const ids = (c: CheckpointTuple["config"] | undefined) => c && { thread_id: c.configurable?.thread_id, checkpoint_ns: c.configurable?.checkpoint_ns ?? "", checkpoint_id: c.configurable?.checkpoint_id };
  return { config: ids(tuple.config), parentConfig: ids(tuple.parentConfig), checkpoint: tuple.checkpoint, metadata: tuple.metadata, pendingWrites: tuple.pendingWrites };
}

async function listed(saver: BaseCheckpointSaver, config: Parameters<BaseCheckpointSaver["list"]>[0], options?: Parameters<BaseCheckpointSaver["list"]>[1]) {
  const out = [];
  for await (const tuple of saver.list(config, options)) out.push(comparable(tuple));
  return out;
}

for (const backend of backends) {
  describe(`KeelCheckpointSaver on ${backend.name} reads back what MemorySaver does`, () => {
    it("for random runs: every checkpoint, the latest, and every list (whole, limited, before, filtered)", async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 40 }), fc.integer({ min: 1, max: 4 }), fc.integer({ min: 0, max: 2 }), async (ops, snapshotEvery, headCacheSize) => {
          const memory = new MemorySaver();
          const keel = await backend.open({ snapshotEvery, headCacheSize: headCacheSize === 2 ? 256 : headCacheSize });
          try {
            const ids = await drive([memory, keel.saver], ops);
            for (const thread of ["thread-0", "thread-1"]) {
              const config = { configurable: { thread_id: thread, checkpoint_ns: "" } };
              expect(comparable(await keel.saver.getTuple(config))).toEqual(comparable(await memory.getTuple(config)));
              const all = await listed(memory, config);
              expect(await listed(keel.saver, config)).toEqual(all);
              expect(await listed(keel.saver, config, { limit: 2 })).toEqual(await listed(memory, config, { limit: 2 }));
              const middle = all[Math.floor(all.length / 2)];
              if (middle) {
                const before = { configurable: { checkpoint_id: middle.config!.checkpoint_id } };
                expect(await listed(keel.saver, config, { before, limit: 3 })).toEqual(await listed(memory, config, { before, limit: 3 }));
              }
              expect(await listed(keel.saver, config, { filter: { tag: "b" } })).toEqual(await listed(memory, config, { filter: { tag: "b" } }));
            }
            for (const id of ids) {
              for (const thread of ["thread-0", "thread-1"]) {
                const config = { configurable: { thread_id: thread, checkpoint_ns: "", checkpoint_id: id } };
                expect(comparable(await keel.saver.getTuple(config))).toEqual(comparable(await memory.getTuple(config)));
              }
            }
          } finally {
            await keel.close();
          }
        }),
        { numRuns: backend.name === "sqlite" ? 120 : 30 },
      );
    });
  });
}
