/** The runtime-owned keys of the built-in lead and subagent stacks, composed as `keel serve` composes them. */
import { compose } from "../../kernel/compose/index.js";
import { runtimeOwnedKeys } from "../../kernel/compose/runtime-owned.js";
import { loadStack } from "../../tools/stacks/load-stack.js";
import { composeSubagentStack } from "../../tools/stacks/subagent-stack.js";

export async function builtinRuntimeOwnedKeys(): Promise<string[]> {
  const lead = await loadStack("lead");
  const sub = await loadStack("subagent");
  return runtimeOwnedKeys([compose(lead.stack, { plugins: lead.plugins }), composeSubagentStack(sub.stack, { plugins: sub.plugins })]);
}
