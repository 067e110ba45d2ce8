/** `keel/testing`: scripted models, the scenario runner and the plugin tester. */
export { ScriptedChatModel, ScriptedProviderError, estimateUsage, type ScriptedAgent, type ScriptedTurn, type ScriptedFault, type ScriptedToolCall } from "./scripted-model.js";
export { runScenario, SCENARIO_CLOCK_START, type RunScenarioOptions } from "../scenario/run-scenario.js";
export { assertScenario, loadScenarioFile } from "../scenario/load-scenario.js";
export { summarizeReport, type RunReport } from "../scenario/run-report.js";
export { PluginTester, PluginTestFailure, type PluginTestCase, type PluginTestCaseFailure, type PluginTestCode, type PluginTestExpectation, type PluginTesterOptions, type TestFramework } from "./plugin-tester.js";
