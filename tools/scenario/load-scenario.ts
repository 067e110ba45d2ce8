import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { validate } from "../../contracts/registry.js";
import type { ScenarioV1 } from "../../contracts/scenario/v1.js";
import { KeelError } from "../../kernel/errors.js";

export interface LoadedScenario {
  scenario: ScenarioV1;
  /** Directory that an inline stack's `module` paths resolve against. */
  baseDir: string;
}

/** Check a scenario@1 document; an invalid one is `KEEL_ERR_SCENARIO_INVALID` naming the JSON pointer. */
export function assertScenario(json: unknown, label = "scenario"): ScenarioV1 {
  const result = validate("scenario@1", json);
  if (!result.valid) {
    const issue = result.errors[0]!;
    const pointer = issue.pointer || "/";
    throw new KeelError("KEEL_ERR_SCENARIO_INVALID", `${label} is invalid at \`${pointer}\`: ${issue.message}`, { pointer });
  }
  return json as ScenarioV1;
}

export function loadScenarioFile(path: string, cwd = process.cwd()): LoadedScenario {
  const full = resolve(cwd, path);
  let text: string;
  try {
    text = readFileSync(full, "utf8");
  } catch (error) {
    throw new KeelError("KEEL_ERR_CLI_FILE", `cannot read scenario \`${path}\`: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new KeelError("KEEL_ERR_CLI_JSON", `scenario \`${path}\` is not valid JSON: ${(error as Error).message}`);
  }
  return { scenario: assertScenario(json, `scenario \`${path}\``), baseDir: dirname(full) };
}
