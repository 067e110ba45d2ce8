import { describe, expect, it } from "vitest";
import { compose } from "../../kernel/compose/compose.js";
import { CompositionError, ERRORS } from "../../kernel/errors.js";
import { fixtureNames, loadFixture } from "./load-fixture.js";

function composeFixture(name: string) {
  const fixture = loadFixture(name);
  return { fixture, run: () => compose(fixture.stack, { ...fixture.options, plugins: fixture.plugins }) };
}

function problemsOf(run: () => unknown): CompositionError["problems"] {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(CompositionError);
    return (error as CompositionError).problems;
  }
  throw new Error("expected compose to throw a CompositionError");
}

describe("composition fixtures (test/compose/fixtures/<case>)", () => {
  const names = fixtureNames();

  it("has a fixture for a valid order and for every compose/config error code", () => {
    const codes = new Set(names.flatMap((n) => (loadFixture(n).expected.problems ?? []).map((p) => p.code)));
    const wanted = (Object.keys(ERRORS) as Array<keyof typeof ERRORS>).filter(
      (c) => (c.startsWith("KEEL_ERR_COMPOSE_") && c !== "KEEL_ERR_COMPOSE_REJECTED") || c.startsWith("KEEL_ERR_CONFIG_") || c.startsWith("KEEL_ERR_MANIFEST_"),
    );
    expect([...codes].sort()).toEqual(wanted.sort());
    expect(names.some((n) => loadFixture(n).expected.order !== undefined)).toBe(true);
  });

  for (const name of names) {
    it(name, () => {
      const { fixture, run } = composeFixture(name);
      const { expected } = fixture;
      if (expected.problems !== undefined) {
        const problems = problemsOf(run);
        expect(problems).toHaveLength(expected.problems.length);
        expected.problems.forEach((want, i) => expect(problems[i]).toMatchObject(want));
        for (const p of problems) expect(p.message).toMatch(/`/);
        return;
      }
      const composition = run();
      expect(composition.order).toEqual(expected.order);
      if (expected.hooks) expect(composition.explain().hooks).toEqual(expected.hooks);
      for (const [plugin, config] of Object.entries(expected.config ?? {})) {
        expect(composition.plugins.get(plugin)?.config).toEqual(config);
      }
    });
  }
});
