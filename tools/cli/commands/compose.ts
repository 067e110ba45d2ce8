import { compose } from "../../../kernel/compose/index.js";
import { fixLine } from "../../../kernel/compose/messages.js";
import type { Composition } from "../../../kernel/compose/types.js";
import { CompositionError, KeelError } from "../../../kernel/errors.js";
import { HOOK_NAMES } from "../../../contracts/shared.js";
import { loadStack } from "../../stacks/load-stack.js";
import { parseSpecArgs, wantsJson } from "../args.js";
import { helpRequested, renderHelp } from "../command-spec.js";
import { EXIT_FAILED, EXIT_OK, failUsage, printJson, type CommandIO } from "../io.js";
import { COMPOSE_SPEC } from "../specs.js";

const USAGE = COMPOSE_SPEC.usage;

/** `keel compose`: the composed order and every hook chain, or every problem (exit 1). */
export async function composeCommand(args: string[], io: CommandIO): Promise<number> {
  if (helpRequested(args)) return (io.out(renderHelp(COMPOSE_SPEC)), EXIT_OK);
  const json = wantsJson(args);
  let composition: Composition;
  try {
    const { values, positionals } = parseSpecArgs(args, COMPOSE_SPEC);
    if (positionals.length > 1) throw new KeelError("KEEL_ERR_CLI_USAGE", `expected at most one STACK, got ${positionals.length}; ${USAGE}`);
    const loaded = await loadStack(positionals[0] ?? "lead", { pluginFiles: values.plugin ?? [], cwd: io.cwd });
    try {
      composition = compose(loaded.stack, { plugins: loaded.plugins });
    } catch (error) {
      if (error instanceof CompositionError) return reportProblems(io, json, error);
      throw error;
    }
  } catch (error) {
    return failUsage(io, json, error);
  }
  const hooks = Object.fromEntries(HOOK_NAMES.map((h) => [h, [...composition.hooks[h]]]));
  if (json) {
    printJson(io, { ok: true, order: [...composition.order], hooks });
  } else {
    io.out(renderComposition(composition));
  }
  return EXIT_OK;
}

export function renderComposition(composition: Composition): string {
  const lines = [`stack ${composition.stackName}: ${composition.order.length} plugins`, "", "order:"];
  composition.order.forEach((name, i) => lines.push(`  ${i + 1}. ${name}${composition.plugins.get(name)?.plugin.manifest.kind === "service" ? " (service)" : ""}`));
  lines.push("", "hooks (execution order):");
  for (const hook of HOOK_NAMES) {
    const chain = composition.hooks[hook];
    lines.push(`  ${hook}: ${chain.length > 0 ? chain.join(" → ") : "(none)"}`);
  }
  return lines.join("\n");
}

/** Print a composition's problems (text or `{ ok: false, problems }`) and return exit 1. */
export function reportProblems(io: CommandIO, json: boolean, error: CompositionError): number {
  if (json) {
    printJson(io, { ok: false, problems: error.problems });
  } else {
    io.out(renderProblems(error));
  }
  return EXIT_FAILED;
}

export function renderProblems(error: CompositionError): string {
  const lines = [`The stack does not compose (${error.problems.length} problem${error.problems.length === 1 ? "" : "s"}):`];
  for (const p of error.problems) {
    lines.push(`  ${p.code}: ${p.message}`);
    const fix = fixLine(p.message, p.fix);
    if (fix !== undefined) lines.push(`    fix: ${fix}`);
  }
  return lines.join("\n");
}
