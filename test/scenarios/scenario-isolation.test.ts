import { describe, expect, it } from "vitest";
import type { ScenarioV1 } from "../../contracts/scenario/v1.js";
import { isKeelError } from "../../kernel/errors.js";
import { runScenario } from "../../tools/scenario/run-scenario.js";

/** The built-in lead stack (its error-fallback the built-in instance), a provider failing at turn 1; short backoff. */
function failing(name: string, times: number | "always"): ScenarioV1 {
  return {
    contract: "scenario",
    version: 1,
    name,
    stack: "lead",
    config: { "error-fallback": { baseMs: 1, capMs: 3 } },
    input: "Go.",
    agents: { lead: { turns: [{ content: "ok" }] } },
    faults: [{ agent: "lead", turn: 1, times, error: { status: 503, message: "down" } }],
  };
}

const guards = (report: Awaited<ReturnType<typeof runScenario>>) => report.events.filter((e) => e.event === "guard").map((e) => e.data as Record<string, unknown>);

describe("runScenario: every run independent and deterministic", () => {
  it("refuses a value that is not a valid scenario@1 (KEEL_ERR_SCENARIO_INVALID with its JSON pointer) and runs nothing", async () => {
    const valid = failing("invalid", 1);
    const cases: Array<[unknown, string]> = [
      [{ ...valid, agents: undefined }, "/agents"],
      [{ ...valid, maxTurns: 0 }, "/maxTurns"],
      [{ ...valid, version: 7 }, "/version"],
      [{ ...valid, typo: true }, "/typo"],
    ];
    for (const [scenario, pointer] of cases) {
      const error = await runScenario(scenario as ScenarioV1).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isKeelError(error) && error.code).toBe("KEEL_ERR_SCENARIO_INVALID");
      expect((error as { pointer?: string }).pointer).toBe(pointer);
      expect((error as Error).message).toContain(`\`${pointer}\``);
    }
  });

  it("gives the same report twice when a fault is retried (the backoff jitter is seeded by the scenario)", async () => {
    const first = await runScenario(failing("retried-twice", 2));
    const second = await runScenario(failing("retried-twice", 2));
    expect(first.outcome.status).toBe("succeeded");
    expect(guards(first).map((g) => g.action)).toEqual(["retry", "retry"]);
    expect(second).toEqual(first);
  });

  it("does not carry a circuit breaker opened by one run into the next", async () => {
    const outcomes: unknown[] = [];
    for (let i = 0; i < 3; i++) {
      const report = await runScenario(failing("always-down", "always"));
      outcomes.push({ status: report.outcome.status, attempts: report.modelRequests.length, reasons: guards(report).map((g) => g.reason) });
    }
    // Three attempts a run, each a 503: two retries, then the fallback; the breaker (5 failures) never opens within one run.
    expect(outcomes[0]).toEqual({ status: "failed", attempts: 3, reasons: ["server_error", "server_error"] });
    expect(outcomes).toEqual([outcomes[0], outcomes[0], outcomes[0]]);
  });
});
