import { describe, expect, it } from "vitest";
import type { AgentsPort, ChildAgentRequest, ChildAgentResult, LeaseHold, LeaseKeeperPort } from "../../../kernel/ports/agents.js";
import { superviseChild } from "../../../plugins/subagents/supervise.js";

const cancelled: ChildAgentResult = {
  outcome: { contract: "status", version: 2, status: "cancelled", stopReasons: [], text: "Run cancelled" },
  messages: [],
  values: {},
  turns: 0,
  usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
};

/** A child that never answers: it ends (cancelled) only when its signal is aborted. */
function hangingAgents(seen: ChildAgentRequest[]): AgentsPort {
  return {
    types: () => ["general-purpose"],
    tokenBudget: () => undefined,
    run: (request) => {
      seen.push(request);
      return new Promise((resolve) => request.signal.addEventListener("abort", () => resolve(cancelled), { once: true }));
    },
  };
}

const request = {
  threadId: "th",
  runId: "r",
  agentPath: "lead/t1",
  taskId: "t1",
  subagentType: "general-purpose",
  systemPrompt: "s",
  input: "i",
  tools: [],
  protectedTools: [],
  terminalTools: [],
  maxTurns: 5,
};

describe("superviseChild", () => {
  it("aborts the child when the parent is cancelled", async () => {
    const parent = new AbortController();
    const seen: ChildAgentRequest[] = [];
    const running = superviseChild({ agents: hangingAgents(seen), request, ctx: { signal: parent.signal, now: () => "2026-01-01T00:00:00.000Z" }, timeoutSeconds: 60 });
    parent.abort();
    const run = await running;
    expect(seen[0]!.signal.aborted).toBe(true);
    expect(run.interruption).toEqual({ kind: "parent_cancelled" });
    expect(run.leaseCurrent).toBe(true);
  });

  it("times a child out after timeoutSeconds", async () => {
    const run = await superviseChild({ agents: hangingAgents([]), request, ctx: { signal: new AbortController().signal, now: () => "" }, timeoutSeconds: 0.02 });
    expect(run.interruption).toEqual({ kind: "timeout", seconds: 0.02 });
  });

  it("cancels the child when its lease expires, and reports the lease as no longer current", async () => {
    let expire: () => void = () => undefined;
    let expired = false;
    const hold: LeaseHold = {
      beat: () => undefined,
      release: () => !expired,
      get expired() {
        return expired;
      },
      epoch: 2,
      expiresAt: "2026-01-01T00:00:00.150Z",
    };
    const keeper: LeaseKeeperPort = {
      ttlMs: 150,
      hold: (_lease, onExpire) => {
        expire = () => {
          expired = true;
          onExpire();
        };
        return hold;
      },
    };
    const lease = { leaseId: "l", runId: "r", taskId: "t1", owner: "lead/t1", epoch: 1, tokenAllowance: 1, returnReserve: 1, grantedAt: "2026-01-01T00:00:00.000Z", expiresAt: "2026-01-01T00:00:00.150Z", state: "active" as const };
    const running = superviseChild({ agents: hangingAgents([]), request, ctx: { signal: new AbortController().signal, now: () => "" }, timeoutSeconds: 60, lease, keeper });
    expire();
    const run = await running;
    expect(run.interruption).toEqual({ kind: "lease_expired", ttlMs: 150 });
    expect(run.leaseCurrent).toBe(false);
  });

  it("reports a runner that throws as a failure, not as a result", async () => {
    const agents: AgentsPort = { types: () => [], tokenBudget: () => undefined, run: () => Promise.reject(new Error("no stack")) };
    const run = await superviseChild({ agents, request, ctx: { signal: new AbortController().signal, now: () => "" }, timeoutSeconds: 60 });
    expect(run.result).toBeNull();
    expect(run.failure).toBe("no stack");
  });
});
