import type { ScenarioV1 } from "../../contracts/scenario/v1.js";
import type { StackV1 } from "../../contracts/stack/v1.js";
import type { RunStatus } from "../../kernel/loop/status.js";
import { validateManifest, type ManifestProblem } from "../../kernel/plugin/validate-manifest.js";
import { toPlugin, type PluginDefinition } from "../../kernel/plugin/define-plugin.js";
import type { Plugin } from "../../kernel/plugin/types.js";
import type { RunReport } from "../scenario/run-report.js";
import { runScenario } from "../scenario/run-scenario.js";

export interface PluginTestCase {
  name: string;
  /** Scenario fields; `contract`, `version`, `name` and `stack` are filled in. */
  scenario: Omit<ScenarioV1, "contract" | "version" | "name" | "stack"> & Partial<Pick<ScenarioV1, "name">>;
  /** Shorthand expectations on the outcome. */
  expect?: { status?: RunStatus; stopReasons?: string[]; text?: string | RegExp; errorType?: string };
  /** Any further checks on the run report; throw to fail. */
  assert?: (report: RunReport) => void | Promise<void>;
}

export class PluginTestFailure extends Error {
  constructor(
    message: string,
    readonly report?: RunReport,
  ) {
    super(message);
    this.name = "PluginTestFailure";
  }
}

/** Errors that always fail a case: the plugin broke its manifest at run time. */
const MANIFEST_BREACHES = new Set(["KEEL_ERR_HOOK_UNDECLARED_MUTATION", "KEEL_ERR_HOOK_NEXT_TWICE", "KEEL_ERR_CONTRACT_VIOLATION"]);

/**
 * Tests a plugin the way ESLint's RuleTester tests a rule: it audits the manifest
 * (manifest@1 valid, a config schema present, hooks declared = implemented), then runs
 * scenario cases against a stack that includes the plugin, failing a case when the plugin
 * writes a channel it did not declare.
 *
 * @example
 * await new PluginTester({ stack: "lead" }).run(myPlugin, [
 *   { name: "stops a loop", scenario: { input: "go", agents: { lead: { turns: [...] } } },
 *     expect: { status: "partial", stopReasons: ["loop_capped"] } },
 * ]);
 */
export class PluginTester {
  private readonly stack: string | StackV1;

  constructor(options: { stack?: string | StackV1 } = {}) {
    this.stack = options.stack ?? { name: "plugin-tester", plugins: [] };
  }

  /** Every manifest problem of the plugin (empty when it passes the audit). */
  audit(definition: Plugin | PluginDefinition): ManifestProblem[] {
    const plugin = toPlugin(definition);
    const problems = validateManifest(plugin);
    if (plugin.manifest && typeof plugin.manifest === "object" && plugin.manifest.config === undefined) {
      problems.push({
        code: "KEEL_ERR_MANIFEST_INVALID",
        message: `manifest of \`${plugin.manifest.name}\` has no \`config\` schema`,
        pointer: "/config",
        fix: "declare `config` (a JSON Schema with defaults); `{ type: \"object\", additionalProperties: false }` when the plugin has no options",
      });
    }
    return problems;
  }

  /** Audit, then run every case in order; throws `PluginTestFailure` naming the first failing case. */
  async run(definition: Plugin | PluginDefinition, cases: readonly PluginTestCase[]): Promise<RunReport[]> {
    const plugin = toPlugin(definition);
    const problems = this.audit(plugin);
    if (problems.length > 0) {
      throw new PluginTestFailure(`manifest audit of \`${plugin.manifest?.name}\` failed:\n${problems.map((p) => `  ${p.code}: ${p.message}`).join("\n")}`);
    }
    const reports: RunReport[] = [];
    for (const testCase of cases) reports.push(await this.runCase(plugin, testCase));
    return reports;
  }

  private async runCase(plugin: Plugin, testCase: PluginTestCase): Promise<RunReport> {
    const scenario: ScenarioV1 = {
      contract: "scenario",
      version: 1,
      name: testCase.scenario.name ?? `${plugin.manifest.name}: ${testCase.name}`,
      stack: this.stack,
      ...testCase.scenario,
    } as ScenarioV1;
    const report = await runScenario(scenario, { plugins: [plugin] });
    const fail = (why: string): never => {
      throw new PluginTestFailure(`case \`${testCase.name}\`: ${why}`, report);
    };
    const { outcome } = report;
    if (outcome.error && MANIFEST_BREACHES.has(outcome.error.type) && testCase.expect?.errorType !== outcome.error.type) {
      fail(`the plugin broke its manifest: ${outcome.error.type}: ${outcome.error.message}`);
    }
    const expected = testCase.expect ?? {};
    if (expected.status !== undefined && outcome.status !== expected.status) fail(`expected status \`${expected.status}\`, got \`${outcome.status}\` (${outcome.text})`);
    if (expected.errorType !== undefined && outcome.error?.type !== expected.errorType) fail(`expected error type \`${expected.errorType}\`, got \`${outcome.error?.type ?? "none"}\``);
    if (expected.stopReasons !== undefined) {
      const got = outcome.stopReasons.map((r) => r.reason);
      if (JSON.stringify(got) !== JSON.stringify(expected.stopReasons)) fail(`expected stop reasons ${JSON.stringify(expected.stopReasons)}, got ${JSON.stringify(got)}`);
    }
    if (expected.text !== undefined) {
      const ok = typeof expected.text === "string" ? outcome.text === expected.text : expected.text.test(outcome.text);
      if (!ok) fail(`outcome text ${JSON.stringify(outcome.text)} does not match ${String(expected.text)}`);
    }
    if (testCase.assert) {
      try {
        await testCase.assert(report);
      } catch (error) {
        fail((error as Error).message);
      }
    }
    return report;
  }
}
