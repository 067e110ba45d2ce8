import { AIMessage, HumanMessage, RemoveMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isHidden, keelMeta, messageText, setKeelMeta } from "../../../kernel/loop/message-meta.js";
import type { HookContext } from "../../../kernel/plugin/types.js";
import summarization, { PINNED_REQUEST_CHARS, pinnedRequest, taskRequestIndexes, type SummaryState } from "../../../plugins/summarization/index.js";

/**
 * The task survives compaction: whatever the summarizer writes (here: almost nothing), the
 * first and the latest user request are in the next model request, verbatim up to 2,000
 * characters each, after any number of compactions (a summary of a summary included).
 */

type Step = { kind: "tool" } | { kind: "user"; text: string };

function context(config: Record<string, unknown>, summarize: (messages: BaseMessage[]) => Promise<string>, turn: number): HookContext {
  return {
    plugin: "summarization",
    hook: "beforeModel",
    threadId: "t1",
    runId: "r1",
    agent: "lead",
    turn,
    config,
    signal: new AbortController().signal,
    emit: () => undefined,
    guard: () => undefined,
    update: () => undefined,
    summarize,
    now: () => "2026-01-01T00:00:00.000Z",
    port: () => {
      throw new Error("no ports here");
    },
  };
}

/** Drive the hook over a scripted conversation; `check` sees every history the next model request would carry. */
async function converse(first: string, steps: readonly Step[], options: { triggerMessages: number; keepMessages: number }, check: (messages: BaseMessage[], requests: { first: string; latest: string }) => void) {
  const config = { triggerMessages: options.triggerMessages, keepMessages: options.keepMessages, triggerFraction: 0.6, contextTokens: 128000 };
  // A summarizer that keeps nothing of the task: the guarantee must not depend on it.
  const summarize = async (messages: BaseMessage[]) => `${messages.length} messages happened`;
  let messages: BaseMessage[] = [new SystemMessage({ content: "You are an agent.", id: "sys" }), new HumanMessage({ content: first, id: "u0" })];
  let summary: SummaryState | undefined;
  let latest = first;
  let compactions = 0;
  for (const [n, step] of steps.entries()) {
    const update = await summarization.hooks.beforeModel!({ messages, summary }, context(config, summarize, n + 1));
    if (update) {
      const list = update.messages as BaseMessage[];
      expect(RemoveMessage.isInstance(list[0]!)).toBe(true);
      messages = list.slice(1);
      summary = update.summary as SummaryState;
      compactions += 1;
    }
    check(messages, { first, latest });
    if (step.kind === "tool") {
      messages = [...messages, new AIMessage({ content: "", id: `a${n}`, tool_calls: [{ id: `c${n}`, name: "echo", args: { n } }] }), new ToolMessage({ content: `echo ${n}`, tool_call_id: `c${n}`, id: `t${n}` })];
    } else {
      latest = step.text;
      messages = [...messages, new AIMessage({ content: "ok", id: `a${n}` }), new HumanMessage({ content: step.text, id: `u${n + 1}` })];
    }
  }
  return { compactions, summary };
}

/** The request's own text, verbatim up to PINNED_REQUEST_CHARS, in a visible user message. */
function carries(messages: readonly BaseMessage[], request: string): boolean {
  const head = request.slice(0, PINNED_REQUEST_CHARS);
  return messages.some((m) => HumanMessage.isInstance(m) && !isHidden(m) && messageText(m).startsWith(head));
}

const text = fc.string({ minLength: 1, maxLength: 3000, unit: fc.constantFrom("a", "b", " ", "\n", "é", "z") }).filter((s) => s.trim().length > 0);
const step: fc.Arbitrary<Step> = fc.oneof({ weight: 4, arbitrary: fc.constant({ kind: "tool" as const }) }, { weight: 1, arbitrary: text.map((t) => ({ kind: "user" as const, text: t })) });

describe("summarization keeps the task", () => {
  it("property: after k compactions the first and the latest user request are in the next request, verbatim up to 2,000 characters", async () => {
    await fc.assert(
      fc.asyncProperty(text, fc.array(step, { minLength: 10, maxLength: 40 }), fc.integer({ min: 4, max: 9 }), fc.integer({ min: 1, max: 3 }), async (first, steps, triggerMessages, keepMessages) => {
        const { compactions, summary } = await converse(first, steps, { triggerMessages, keepMessages }, (messages, requests) => {
          expect(carries(messages, requests.first)).toBe(true);
          expect(carries(messages, requests.latest)).toBe(true);
          // Provider rule kept: system first, then user content.
          expect(messages[0]!.getType()).toBe("system");
          expect(messages[1]!.getType()).toBe("human");
        });
        // Enough steps for the trigger: the property is about repeated compactions (a summary of a summary).
        expect(compactions).toBeGreaterThanOrEqual(2);
        expect(summary!.compactions).toBe(compactions);
      }),
      { numRuns: 60, seed: 9 },
    );
  });

  it("a request longer than 2,000 characters is pinned clipped once, with a note, and re-pinned unchanged", async () => {
    const long = `${"x".repeat(2500)}END`;
    const seen: string[] = [];
    await converse(long, Array.from({ length: 12 }, () => ({ kind: "tool" as const })), { triggerMessages: 5, keepMessages: 2 }, (messages) => {
      seen.push(messageText(messages[1]!));
    });
    const pinned = seen.filter((t) => t !== long);
    expect(pinned.length).toBeGreaterThan(1);
    // The same clipped text at every compaction: 2,000 characters verbatim, then the note.
    expect(new Set(pinned).size).toBe(1);
    expect(pinned[0]).toBe(`${"x".repeat(2000)}\n[… 503 more characters of this request are covered by the summary]`);
  });

  it("only visible human messages are requests: summaries and hidden injected messages are not", () => {
    const hidden = setKeelMeta(new HumanMessage({ content: "[LOOP WARNING] hidden", id: "h" }), { hidden: true });
    const marker = setKeelMeta(new HumanMessage({ content: "[Summary] …", id: "s" }), { hidden: true, summaryMarker: { compaction: 1, replaced: 2 } });
    const messages = [new SystemMessage("sys"), marker, new HumanMessage({ content: "task", id: "u1" }), new AIMessage("ok"), hidden, new HumanMessage({ content: "next", id: "u2" }), new AIMessage("ok")];
    expect(taskRequestIndexes(messages)).toEqual({ first: 2, latest: 5 });
    expect(taskRequestIndexes([new SystemMessage("sys"), marker, hidden])).toBeNull();
    const short = new HumanMessage({ content: "short", id: "u3" });
    expect(pinnedRequest(short)).toBe(short);
    expect(keelMeta(pinnedRequest(new HumanMessage({ content: "y".repeat(2001), id: "u4" }))).clippedRequest).toEqual({ chars: 2001 });
  });
});
