import { createRequire } from "node:module";
import { validate } from "../../contracts/registry.js";
import type { ScenarioV1 } from "../../contracts/scenario/v1.js";
import type { StackV1 } from "../../contracts/stack/v1.js";
import type { KeelErrorCode } from "../../kernel/errors.js";
import type { RunStatus } from "../../kernel/loop/status.js";
import { auditManifest, manifestAccepted, type ManifestProblem } from "../../kernel/plugin/validate-manifest.js";
import { toPlugin, type PluginDefinition } from "../../kernel/plugin/define-plugin.js";
import type { Plugin } from "../../kernel/plugin/types.js";
import type { RunReport } from "../scenario/run-report.js";
import { runScenario } from "../scenario/run-scenario.js";
import { watchInPlaceMutations, type InPlaceMutation } from "./state-guard.js";

export interface PluginTestExpectation {
  status?: RunStatus;
  stopReasons?: string[];
  text?: string | RegExp;
  errorType?: string;
}

export interface PluginTestCase {
  name: string;
  /** Scenario fields (scenario@1); `contract`, `version`, `name` and `stack` are filled in. */
  scenario: Omit<ScenarioV1, "contract" | "version" | "name" | "stack"> & Partial<Pick<ScenarioV1, "name">>;
  /** Shorthand expectations on the outcome. */
  expect?: PluginTestExpectation;
  /** Any further checks on the run report; throw to fail. */
  assert?: (report: RunReport) => void | Promise<void>;
}

/** The codes a PluginTester failure carries (each described in docs/errors.md). */
export type PluginTestCode = Extract<
  KeelErrorCode,
  | "KEEL_ERR_TESTER_CASE_INVALID"
  | "KEEL_ERR_TESTER_MANIFEST"
  | "KEEL_ERR_TESTER_EXPECTATION"
  | "KEEL_ERR_TESTER_MANIFEST_BREACH"
  | "KEEL_ERR_TESTER_STATE_MUTATED"
  | "KEEL_ERR_TESTER_NOT_REPEATABLE"
  | "KEEL_ERR_TESTER_FAILED"
>;

/** One failing case (or the manifest audit, `case: undefined`). */
export interface PluginTestCaseFailure {
  case: string | undefined;
  code: PluginTestCode;
  message: string;
  report?: RunReport;
}

export class PluginTestFailure extends Error {
  readonly code: PluginTestCode;
  /** Every failure, in case order; one failure gives its own code, several `KEEL_ERR_TESTER_FAILED`. */
  readonly failures: readonly PluginTestCaseFailure[];
  /** The run report of the first failure, when it ran. */
  readonly report?: RunReport;

  constructor(message: string, report?: RunReport, failures?: readonly PluginTestCaseFailure[], code?: PluginTestCode) {
    super(message);
    this.name = "PluginTestFailure";
    this.failures = Object.freeze([...(failures ?? [{ case: undefined, code: code ?? "KEEL_ERR_TESTER_FAILED", message, ...(report ? { report } : {}) }])]);
    this.code = code ?? (this.failures.length === 1 ? this.failures[0]!.code : "KEEL_ERR_TESTER_FAILED");
    if (report !== undefined) this.report = report;
  }

  static of(failures: readonly PluginTestCaseFailure[]): PluginTestFailure {
    const lines = failures.map((f) => `${f.code}: ${f.message}`);
    const message = failures.length === 1 ? lines[0]! : `${failures.length} plugin test cases failed:\n${lines.map((l) => `  ${l}`).join("\n")}`;
    return new PluginTestFailure(message, failures.find((f) => f.report)?.report, failures);
  }
}

/** `describe`/`it` of a test framework (vitest, node:test, mocha, jest): tests are registered with them. */
export interface TestFramework {
  describe: (name: string, body: () => void) => unknown;
  it: (name: string, body: () => Promise<void>) => unknown;
}

export interface PluginTesterOptions {
  stack?: string | StackV1;
  /** Register tests with these (e.g. vitest's `describe`/`it`); default: `PluginTester.describe`/`it`, then globals, then node:test under `node --test`. */
  describe?: TestFramework["describe"];
  it?: TestFramework["it"];
  /** Run each case a second time on a fresh runtime and require the same report (default true). */
  repeat?: boolean;
}

/** Errors that always fail a case: the plugin broke its manifest at run time. */
const MANIFEST_BREACHES = new Set(["KEEL_ERR_HOOK_UNDECLARED_MUTATION", "KEEL_ERR_HOOK_NEXT_TWICE", "KEEL_ERR_HOOK_RETURN_TYPE", "KEEL_ERR_CONTRACT_VIOLATION"]);
const CASE_KEYS = new Set(["name", "scenario", "expect", "assert"]);
const EXPECT_KEYS = new Set(["status", "stopReasons", "text", "errorType"]);
/** Scenario keys the tester sets itself. */
const FILLED_KEYS = ["contract", "version", "stack"];

class CaseError extends Error {
  constructor(
    readonly code: PluginTestCode,
    message: string,
    readonly report?: RunReport,
  ) {
    super(message);
  }
}

/** Report fields that differ between two runs of one scenario for reasons outside the plugin (wall-clock durations). */
function comparable(report: RunReport): string {
  return JSON.stringify(report, (key, value: unknown) => (key === "durationMs" ? undefined : value));
}

function firstDifference(a: unknown, b: unknown, path = ""): string {
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return path || "/";
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (key === "durationMs") continue;
    const x = (a as Record<string, unknown>)[key];
    const y = (b as Record<string, unknown>)[key];
    if (JSON.stringify(x) !== JSON.stringify(y)) return firstDifference(x, y, `${path}/${key}`);
  }
  return path || "/";
}

/**
 * Tests a plugin the way ESLint's RuleTester tests a rule. It audits the manifest (the same
 * audit as `keel plugin check`), checks every case before running any (scenario@1, known
 * keys only, at least one expectation, unique names), then runs each case against a stack
 * that includes the plugin, twice on fresh runtimes, failing a case when an expectation does
 * not hold, when the plugin writes a channel it did not declare, when it changes in place
 * state it was handed, or when the two runs differ. Every failure has a code.
 *
 * `run` runs the cases and throws one `PluginTestFailure` listing every failing case; `test`
 * registers one test per case with the test framework (vitest, node:test, …), or runs
 * standalone when there is none. The case format is in docs/plugin-tester.md.
 *
 * @example
 * import { describe, it } from "vitest";
 * new PluginTester({ stack: "lead", describe, it }).test(myPlugin, [
 *   { name: "stops a loop", scenario: { input: "go", agents: { lead: { turns: [...] } } },
 *     expect: { status: "partial", stopReasons: ["loop_capped"] } },
 * ]);
 */
export class PluginTester {
  /** Set once for every tester (as with ESLint's `RuleTester.describe`/`it`). */
  static describe: TestFramework["describe"] | undefined;
  static it: TestFramework["it"] | undefined;

  private readonly stack: string | StackV1;
  private readonly repeat: boolean;
  private readonly options: PluginTesterOptions;

  constructor(options: PluginTesterOptions = {}) {
    this.stack = options.stack ?? { name: "plugin-tester", plugins: [] };
    this.repeat = options.repeat ?? true;
    this.options = options;
  }

  /** Every manifest problem of the plugin; entries with `severity: "warning"` do not fail it (empty when it passes cleanly). */
  audit(definition: Plugin | PluginDefinition): ManifestProblem[] {
    return auditManifest(toPlugin(definition));
  }

  /** Every problem of the cases themselves (empty when all are well formed). */
  checkCases(cases: readonly PluginTestCase[]): PluginTestCaseFailure[] {
    const failures: PluginTestCaseFailure[] = [];
    const names = new Map<string, number>();
    cases.forEach((testCase, index) => {
      const label = typeof testCase?.name === "string" && testCase.name !== "" ? testCase.name : `#${index}`;
      const problems = this.caseProblems(testCase, index);
      if (typeof testCase?.name === "string") {
        const first = names.get(testCase.name);
        if (first !== undefined) problems.push(`the name is used by case #${first} too; case names must be unique`);
        else names.set(testCase.name, index);
      }
      if (problems.length > 0) failures.push({ case: label, code: "KEEL_ERR_TESTER_CASE_INVALID", message: `case \`${label}\` is invalid: ${problems.join("; ")}` });
    });
    return failures;
  }

  /** Audit, check and run every case; throws one `PluginTestFailure` listing every failing case. Returns the reports (first runs). */
  async run(definition: Plugin | PluginDefinition, cases: readonly PluginTestCase[]): Promise<RunReport[]> {
    const plugin = toPlugin(definition);
    const before = [...this.auditFailure(plugin), ...this.checkCases(cases)];
    if (before.length > 0) throw PluginTestFailure.of(before);
    const reports: RunReport[] = [];
    const failures: PluginTestCaseFailure[] = [];
    for (const testCase of cases) {
      try {
        reports.push(await this.runCase(plugin, testCase));
      } catch (error) {
        if (!(error instanceof CaseError)) throw error;
        failures.push({ case: testCase.name, code: error.code, message: error.message, ...(error.report ? { report: error.report } : {}) });
      }
    }
    if (failures.length > 0) throw PluginTestFailure.of(failures);
    return reports;
  }

  /**
   * Register one test per case (and one for the manifest audit) in a `describe` named after
   * the plugin, with the framework found (options, `PluginTester.describe`/`it`, globals,
   * node:test under `node --test`). Without one, run standalone: the returned promise
   * rejects with a `PluginTestFailure` listing every failing case.
   */
  test(definition: Plugin | PluginDefinition, cases: readonly PluginTestCase[]): Promise<void> {
    const framework = this.framework();
    if (framework === undefined) return this.run(definition, cases).then(() => undefined);
    const plugin = toPlugin(definition);
    const audit = this.auditFailure(plugin);
    const invalid = new Map(this.checkCases(cases).map((f) => [f.case, f]));
    const name = typeof plugin.manifest?.name === "string" ? plugin.manifest.name : "plugin";
    framework.describe(name, () => {
      framework.it("manifest audit", async () => {
        if (audit.length > 0) throw PluginTestFailure.of(audit);
      });
      cases.forEach((testCase, index) => {
        const label = typeof testCase?.name === "string" && testCase.name !== "" ? testCase.name : `#${index}`;
        framework.it(label, async () => {
          const malformed = invalid.get(label);
          if (malformed) throw PluginTestFailure.of([malformed]);
          if (audit.length > 0) throw PluginTestFailure.of(audit);
          try {
            await this.runCase(plugin, testCase);
          } catch (error) {
            if (!(error instanceof CaseError)) throw error;
            throw PluginTestFailure.of([{ case: label, code: error.code, message: error.message, ...(error.report ? { report: error.report } : {}) }]);
          }
        });
      });
    });
    return Promise.resolve();
  }

  private framework(): TestFramework | undefined {
    const pick = (describe: unknown, it: unknown): TestFramework | undefined =>
      typeof describe === "function" && typeof it === "function" ? { describe: describe as TestFramework["describe"], it: it as TestFramework["it"] } : undefined;
    const g = globalThis as { describe?: unknown; it?: unknown };
    return (
      pick(this.options.describe, this.options.it) ??
      pick(PluginTester.describe, PluginTester.it) ??
      pick(g.describe, g.it) ??
      (process.env.NODE_TEST_CONTEXT !== undefined ? nodeTest() : undefined)
    );
  }

  private auditFailure(plugin: Plugin): PluginTestCaseFailure[] {
    const problems = auditManifest(plugin);
    if (manifestAccepted(problems)) return [];
    const lines = problems.filter((p) => p.severity !== "warning").map((p) => `  ${p.code}: ${p.message}`);
    return [{ case: undefined, code: "KEEL_ERR_TESTER_MANIFEST", message: `manifest audit of \`${plugin.manifest?.name}\` failed:\n${lines.join("\n")}` }];
  }

  private caseProblems(testCase: PluginTestCase, index: number): string[] {
    if (typeof testCase !== "object" || testCase === null) return [`case #${index} is not an object`];
    const problems: string[] = [];
    const unknown = Object.keys(testCase).filter((key) => !CASE_KEYS.has(key));
    if (unknown.length > 0) problems.push(`unknown key${unknown.length === 1 ? "" : "s"} ${unknown.map((k) => `\`${k}\``).join(", ")}; a case has ${[...CASE_KEYS].map((k) => `\`${k}\``).join(", ")}`);
    if (typeof testCase.name !== "string" || testCase.name === "") problems.push("`name` must be a non-empty string");
    const expectation = testCase.expect as Record<string, unknown> | undefined;
    if (expectation !== undefined && (typeof expectation !== "object" || expectation === null || Array.isArray(expectation))) {
      problems.push("`expect` must be an object");
    } else {
      const unknownExpect = Object.keys(expectation ?? {}).filter((key) => !EXPECT_KEYS.has(key));
      if (unknownExpect.length > 0) problems.push(`unknown key${unknownExpect.length === 1 ? "" : "s"} in \`expect\`: ${unknownExpect.map((k) => `\`${k}\``).join(", ")}; \`expect\` has ${[...EXPECT_KEYS].map((k) => `\`${k}\``).join(", ")}`);
      const count = Object.keys(expectation ?? {}).filter((key) => EXPECT_KEYS.has(key) && expectation![key] !== undefined).length;
      if (count === 0 && typeof testCase.assert !== "function") problems.push("it has no expectation: give at least one `expect` entry or an `assert` function");
    }
    if (testCase.assert !== undefined && typeof testCase.assert !== "function") problems.push("`assert` must be a function");
    if (typeof testCase.scenario !== "object" || testCase.scenario === null) {
      problems.push("`scenario` must be an object (scenario@1 fields)");
    } else {
      const filled = FILLED_KEYS.filter((key) => key in testCase.scenario);
      if (filled.length > 0) problems.push(`\`scenario\` sets ${filled.map((k) => `\`${k}\``).join(", ")}, which the tester fills in (the stack is the tester's \`stack\` option)`);
      else {
        const result = validate("scenario@1", this.scenarioOf("plugin", testCase));
        for (const issue of result.errors) problems.push(`\`scenario${issue.pointer}\` ${issue.message} (scenario@1)`);
      }
    }
    return problems;
  }

  private scenarioOf(pluginName: string, testCase: PluginTestCase): ScenarioV1 {
    return {
      contract: "scenario",
      version: 1,
      name: testCase.scenario.name ?? `${pluginName}: ${testCase.name}`,
      stack: this.stack,
      ...testCase.scenario,
    } as ScenarioV1;
  }

  /** One run on a fresh runtime, with the plugin's hooks watched for in-place changes. */
  private async runOnce(plugin: Plugin, testCase: PluginTestCase): Promise<{ report: RunReport; mutations: InPlaceMutation[] }> {
    const mutations: InPlaceMutation[] = [];
    const watched = watchInPlaceMutations(plugin, (m) => mutations.push(m));
    const report = await runScenario(this.scenarioOf(plugin.manifest.name, testCase), { plugins: [watched] });
    return { report, mutations };
  }

  private async runCase(plugin: Plugin, testCase: PluginTestCase): Promise<RunReport> {
    const { report, mutations } = await this.runOnce(plugin, testCase);
    const fail = (code: PluginTestCode, why: string): never => {
      throw new CaseError(code, `case \`${testCase.name}\`: ${why}`, report);
    };
    const { outcome } = report;
    if (mutations.length > 0) {
      const seen = [...new Set(mutations.map((m) => `\`${m.path}\` in ${m.hook}`))];
      fail("KEEL_ERR_TESTER_STATE_MUTATED", `the plugin changed in place state it was handed: ${seen.join(", ")}; return an update (or pass a new request to \`next\`) instead of editing what it was given`);
    }
    // With enforcement on, the kernel itself stops an in-place edit at the write (frozen state):
    // the same finding as the watcher's, reported the same way.
    if (outcome.error?.type === "KEEL_ERR_HOOK_UNDECLARED_MUTATION" && / in place in /.test(outcome.error.message) && testCase.expect?.errorType !== outcome.error.type) {
      fail("KEEL_ERR_TESTER_STATE_MUTATED", `the plugin changed in place state it was handed: ${outcome.error.message}`);
    }
    if (outcome.error && MANIFEST_BREACHES.has(outcome.error.type) && testCase.expect?.errorType !== outcome.error.type) {
      fail("KEEL_ERR_TESTER_MANIFEST_BREACH", `the plugin broke its manifest: ${outcome.error.type}: ${outcome.error.message}`);
    }
    const expected = testCase.expect ?? {};
    if (expected.status !== undefined && outcome.status !== expected.status) fail("KEEL_ERR_TESTER_EXPECTATION", `expected status \`${expected.status}\`, got \`${outcome.status}\` (${outcome.text})`);
    if (expected.errorType !== undefined && outcome.error?.type !== expected.errorType) fail("KEEL_ERR_TESTER_EXPECTATION", `expected error type \`${expected.errorType}\`, got \`${outcome.error?.type ?? "none"}\``);
    if (expected.stopReasons !== undefined) {
      const got = outcome.stopReasons.map((r) => r.reason);
      if (JSON.stringify(got) !== JSON.stringify(expected.stopReasons)) fail("KEEL_ERR_TESTER_EXPECTATION", `expected stop reasons ${JSON.stringify(expected.stopReasons)}, got ${JSON.stringify(got)}`);
    }
    if (expected.text !== undefined) {
      const ok = typeof expected.text === "string" ? outcome.text === expected.text : expected.text.test(outcome.text);
      if (!ok) fail("KEEL_ERR_TESTER_EXPECTATION", `outcome text ${JSON.stringify(outcome.text)} does not match ${String(expected.text)}`);
    }
    if (testCase.assert) {
      try {
        await testCase.assert(report);
      } catch (error) {
        fail("KEEL_ERR_TESTER_EXPECTATION", (error as Error).message);
      }
    }
    if (this.repeat) {
      const again = await this.runOnce(plugin, testCase);
      if (comparable(again.report) !== comparable(report)) {
        fail(
          "KEEL_ERR_TESTER_NOT_REPEATABLE",
          `a second run on a fresh runtime gave another report (first difference at \`${firstDifference(report, again.report)}\`): the plugin keeps state between runs (module variables, caches); keep per-run state in channels`,
        );
      }
    }
    return report;
  }
}

/** node:test's `describe`/`it`, loaded only when the process runs under `node --test`. */
function nodeTest(): TestFramework | undefined {
  try {
    const mod = createRequire(import.meta.url)("node:test") as { describe?: unknown; it?: unknown };
    return typeof mod.describe === "function" && typeof mod.it === "function" ? { describe: mod.describe as TestFramework["describe"], it: mod.it as TestFramework["it"] } : undefined;
  } catch {
    return undefined;
  }
}
