import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { keelMeta, messageText } from "../../../kernel/loop/message-meta.js";
import { coalesceMessages, DANGLING_RESULT, hasRepairs, isCoalesced, OPENING_PLACEHOLDER } from "../../../plugins/message-coalescing/index.js";
import { providerViolation } from "./provider-valid.js";

/** One piece of a history: a user turn, an assistant turn with 0–3 calls and some of their results, or an injected part. */
type Segment =
  | { kind: "user" | "hidden" | "system" | "text" }
  | { kind: "calls"; calls: number; answered: boolean[]; shuffle: boolean };

const segment: fc.Arbitrary<Segment> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom<Segment>({ kind: "user" }, { kind: "text" }) },
  { weight: 1, arbitrary: fc.constantFrom<Segment>({ kind: "hidden" }, { kind: "system" }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("calls" as const),
      calls: fc.integer({ min: 0, max: 3 }),
      answered: fc.array(fc.integer({ min: 0, max: 4 }).map((n) => n > 0), { minLength: 3, maxLength: 3 }),
      shuffle: fc.boolean(),
    }),
  },
);

/** Where to inject an extra message and what it is (hidden user data, a system part, an orphan or duplicate result). */
const injection = fc.record({ at: fc.nat(), kind: fc.constantFrom("hidden", "system", "orphan", "duplicate") });

const arbitraryCase = fc.record({
  segments: fc.array(segment, { maxLength: 14 }),
  prefixCut: fc.nat(),
  middleCut: fc.option(fc.record({ from: fc.nat(), length: fc.nat({ max: 6 }) })),
  injections: fc.array(injection, { maxLength: 5 }),
});

let seq = 0;
const id = (prefix: string) => `${prefix}${++seq}`;
const hidden = (text: string) => {
  const m = new HumanMessage({ content: text, id: id("h") });
  m.additional_kwargs = { keel: { hidden: true } };
  return m;
};

function build(segments: Segment[]): BaseMessage[] {
  const out: BaseMessage[] = [new SystemMessage({ content: "base system prompt", id: id("s") })];
  for (const s of segments) {
    if (s.kind === "user") out.push(new HumanMessage({ content: `user ${id("u")}`, id: id("u") }));
    else if (s.kind === "hidden") out.push(hidden(`data ${seq}`));
    else if (s.kind === "system") out.push(new SystemMessage({ content: `system part ${id("p")}`, id: id("s") }));
    else if (s.kind === "text") out.push(new AIMessage({ content: `answer ${id("a")}`, id: id("a") }));
    else if (s.kind === "calls") {
      const calls = Array.from({ length: s.calls }, () => ({ id: id("call"), name: "read_file", args: { path: "x.md" }, type: "tool_call" as const }));
      out.push(new AIMessage({ content: "", id: id("a"), tool_calls: calls }));
      const results = calls.filter((_, i) => s.answered[i]).map((c) => new ToolMessage({ content: `result of ${c.id}`, tool_call_id: c.id!, id: id("t") }));
      out.push(...(s.shuffle ? results.reverse() : results));
    }
  }
  return out;
}

/** A compaction that ignores message structure: drop a prefix, then maybe a slice of the middle. */
function cut(messages: BaseMessage[], c: { prefixCut: number; middleCut: { from: number; length: number } | null }): BaseMessage[] {
  let out = messages.slice(c.prefixCut % (messages.length + 1));
  if (c.middleCut && out.length > 0) {
    const from = c.middleCut.from % out.length;
    out = [...out.slice(0, from), ...out.slice(from + c.middleCut.length)];
  }
  return out;
}

function inject(messages: BaseMessage[], injections: Array<{ at: number; kind: string }>): BaseMessage[] {
  const out = [...messages];
  for (const { at, kind } of injections) {
    const position = at % (out.length + 1);
    const existing = out.find((m) => ToolMessage.isInstance(m)) as ToolMessage | undefined;
    const extra =
      kind === "hidden"
        ? hidden("[injected data]")
        : kind === "system"
          ? new SystemMessage({ content: `injected system ${id("p")}`, id: id("s") })
          : kind === "duplicate" && existing
            ? new ToolMessage({ content: "duplicate", tool_call_id: existing.tool_call_id, id: id("t") })
            : new ToolMessage({ content: "orphan", tool_call_id: id("nocall"), id: id("t") });
    out.splice(position, 0, extra);
  }
  return out;
}

const historyCase = arbitraryCase.map((c) => inject(cut(build(c.segments), c), c.injections));

const isAdded = (m: BaseMessage) => keelMeta(m).synthetic !== undefined || messageText(m) === OPENING_PLACEHOLDER;

describe("message-coalescing property: any history, cut and injection → a provider-valid request", () => {
  it("always yields a provider-valid sequence", () => {
    fc.assert(
      fc.property(historyCase, (messages) => {
        expect(providerViolation(coalesceMessages(messages).messages)).toBeNull();
      }),
      { numRuns: 1000 },
    );
  });

  it("keeps every user and assistant message in order, every system part's text in order, and only real or synthetic results", () => {
    fc.assert(
      fc.property(historyCase, (messages) => {
        const out = coalesceMessages(messages).messages;
        const conversation = (list: BaseMessage[]) => list.filter((m) => m.getType() === "human" || m.getType() === "ai");
        expect(conversation(out).filter((m) => !isAdded(m))).toEqual(conversation(messages));
        const systemTexts = messages.filter((m) => m.getType() === "system").map(messageText);
        expect(out.filter((m) => m.getType() === "system").map(messageText)).toEqual(systemTexts.length ? [systemTexts.join("\n\n")] : []);
        for (const m of out.filter((x) => ToolMessage.isInstance(x))) {
          expect(messages.includes(m) || (isAdded(m) && messageText(m) === DANGLING_RESULT)).toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });

  it("is idempotent: a coalesced request needs no further repair", () => {
    fc.assert(
      fc.property(historyCase, (messages) => {
        const once = coalesceMessages(messages).messages;
        const twice = coalesceMessages(once);
        expect(hasRepairs(twice.repairs)).toBe(false);
        expect(twice.messages).toEqual(once);
      }),
      { numRuns: 500 },
    );
  });
});

describe("message-coalescing fast path: isCoalesced agrees with the full repair", () => {
  const same = (a: readonly BaseMessage[], b: readonly BaseMessage[]) => a.length === b.length && a.every((m, i) => m === b[i]);

  it("is true exactly when coalescing would give the same messages back (and then it repairs nothing)", () => {
    let valid = 0;
    fc.assert(
      fc.property(fc.oneof(historyCase, historyCase.map((m) => coalesceMessages(m).messages)), (messages) => {
        const { messages: out, repairs } = coalesceMessages(messages);
        expect(isCoalesced(messages)).toBe(same(out, messages));
        if (isCoalesced(messages)) {
          valid++;
          expect(hasRepairs(repairs)).toBe(false);
        }
      }),
      { numRuns: 1000 },
    );
    // Both sides of the equivalence are exercised.
    expect(valid).toBeGreaterThan(100);
  });

  it("holds for every coalesced request (so the hook passes it on unchanged)", () => {
    fc.assert(
      fc.property(historyCase, (messages) => {
        expect(isCoalesced(coalesceMessages(messages).messages)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});
