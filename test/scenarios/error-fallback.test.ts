import { describe, expect, it } from "vitest";
import type { ScenarioV1 } from "../../contracts/scenario/v1.js";
import { createErrorFallbackPlugin } from "../../plugins/error-fallback/index.js";
import { runScenario } from "../../tools/scenario/run-scenario.js";

type Fault = NonNullable<ScenarioV1["faults"]>[number];

/** Turn 1 reads a file, turn 2 answers; `faults` hit the lead's model calls. */
function scenario(name: string, faults: Fault[]): ScenarioV1 {
  return {
    contract: "scenario",
    version: 1,
    name,
    stack: { contract: "stack", version: 1, name: "test", plugins: ["workspace"] },
    input: "Summarize notes.md",
    workspace: { files: { "notes.md": "tides follow the moon\n" } },
    agents: { lead: { turns: [{ toolCalls: [{ name: "read_file", args: { path: "notes.md" } }] }, { content: "Tides follow the moon." }] } },
    faults,
  };
}

/** Instant, deterministic retries: no real sleeping, a fixed jitter draw. */
const plugin = () => createErrorFallbackPlugin({ sleep: async () => {}, random: () => 0.5 });

const guardEvents = (report: Awaited<ReturnType<typeof runScenario>>) => report.events.filter((e) => e.event === "guard").map((e) => e.data as Record<string, unknown>);

describe("scenario: provider errors with error-fallback", () => {
  it("(a) 429 twice at turn 2, then success: succeeded, 3 attempts for that turn, 2 retry guards, turns unchanged", async () => {
    const report = await runScenario(scenario("ef-429-twice", [{ agent: "lead", turn: 2, times: 2, error: { status: 429, message: "rate limited" } }]), {
      plugins: [plugin()],
    });
    expect(report.outcome.status).toBe("succeeded");
    expect(report.outcome.text).toBe("Tides follow the moon.");
    expect(report.modelRequests.map((r) => r.turn)).toEqual([1, 2, 2, 2]);
    expect(guardEvents(report)).toEqual([
      { plugin: "error-fallback", agent: "lead", action: "retry", reason: "rate_limited", detail: "attempt 2/3 after 500 ms: 429 rate limited", retryInMs: 500 },
      { plugin: "error-fallback", agent: "lead", action: "retry", reason: "rate_limited", detail: "attempt 3/3 after 1000 ms: 429 rate limited", retryInMs: 1000 },
    ]);
    expect(report.turns).toEqual({ lead: 2, total: 2 });
  });

  it("(b) 401: no retry, failed with errorFallback type auth", async () => {
    const report = await runScenario(scenario("ef-401", [{ agent: "lead", turn: 2, times: "always", error: { status: 401, message: "invalid api key" } }]), {
      plugins: [plugin()],
    });
    expect(report.modelRequests.map((r) => r.turn)).toEqual([1, 2]);
    expect(guardEvents(report)).toEqual([]);
    expect(report.outcome.status).toBe("failed");
    expect(report.outcome.error).toEqual({ type: "auth", message: "invalid api key", retryable: false });
    const last = report.messages.at(-1)!;
    expect(last).toMatchObject({ role: "assistant", content: "The model provider failed (auth after 1 attempt): invalid api key" });
  });

  it("(c) 500 on every attempt: 3 attempts, then failed (server_error, retryable)", async () => {
    const report = await runScenario(scenario("ef-500", [{ agent: "lead", turn: 1, times: "always", error: { status: 500, message: "internal error" } }]), {
      plugins: [plugin()],
    });
    expect(report.modelRequests.map((r) => r.turn)).toEqual([1, 1, 1]);
    expect(guardEvents(report).map((g) => g.action)).toEqual(["retry", "retry"]);
    expect(report.outcome.status).toBe("failed");
    expect(report.outcome.error).toEqual({ type: "server_error", message: "internal error", retryable: true });
    expect(report.outcome.text).toBe("internal error");
    expect(report.turns).toEqual({ lead: 1, total: 1 });
  });

  it("(d) without the plugin a provider error ends the run failed with the provider's message", async () => {
    const report = await runScenario(scenario("ef-none", [{ agent: "lead", turn: 2, times: 1, error: { status: 429, message: "rate limited" } }]));
    expect(report.modelRequests.map((r) => r.turn)).toEqual([1, 2]);
    expect(report.outcome.status).toBe("failed");
    expect(report.outcome.error).toMatchObject({ type: "KEEL_ERR_MODEL_FAILED", message: "rate limited" });
  });

  it("scenario config reaches the plugin (attempts: 2)", async () => {
    const base = scenario("ef-config", [{ agent: "lead", turn: 1, times: "always", error: { status: 503, message: "unavailable" } }]);
    const report = await runScenario({ ...base, config: { "error-fallback": { attempts: 2 } } }, { plugins: [plugin()] });
    expect(report.modelRequests.map((r) => r.turn)).toEqual([1, 1]);
    expect(report.outcome.error?.type).toBe("server_error");
  });
});
