/**
 * The approval stacks: `lead-approval` is `lead` + human-approval (children on
 * `subagent-approval`), both compose race-free (compose throws KEEL_ERR_COMPOSE_REJECTED
 * on a race), `lead` itself does not have the plugin, and the options are validated.
 */
import { describe, expect, it } from "vitest";
import { compose } from "../../../kernel/compose/index.js";
import { loadStack, readStack } from "../../../tools/stacks/load-stack.js";
import { composeSubagentStack } from "../../../tools/stacks/subagent-stack.js";

const names = (stack: { plugins: readonly unknown[] }) => stack.plugins.map((e) => (typeof e === "string" ? e : (e as { name: string }).name));

describe("lead-approval and subagent-approval", () => {
  it("lead-approval is lead plus human-approval; lead does not list it", () => {
    const lead = readStack("lead").stack;
    const approval = readStack("lead-approval").stack;
    expect(names(lead)).not.toContain("human-approval");
    expect(names(approval)).toEqual([...names(lead), "human-approval"]);
    expect(approval.subagentStack).toBe("subagent-approval");
    expect(names(readStack("subagent-approval").stack)).toEqual([...names(readStack("subagent").stack), "human-approval"]);
  });

  it("both compose without a race or conflict: human-approval first in afterModel, innermost wrapToolCall inside receipts", async () => {
    const lead = await loadStack("lead-approval");
    const composition = compose(lead.stack, { plugins: lead.plugins });
    expect(composition.hooks.afterModel[0]).toBe("human-approval");
    expect(composition.hooks.wrapToolCall.at(-1)).toBe("human-approval");
    expect(composition.hooks.wrapToolCall[0]).toBe("receipts");
    expect(composition.channels.get("approvals")?.owner).toBe("human-approval");
    expect(composition.plugins.get("human-approval")!.config).toEqual({ interruptOn: {}, descriptionPrefix: "Tool execution requires approval" });

    const sub = await loadStack("subagent-approval");
    const child = composeSubagentStack(sub.stack, { plugins: sub.plugins });
    expect(child.hooks.afterModel[0]).toBe("human-approval");
    expect(child.hooks.wrapToolCall.at(-1)).toBe("human-approval");
  });

  it("a policy in the wrong shape is KEEL_ERR_CONFIG_INVALID with its pointer", async () => {
    const lead = await loadStack("lead-approval");
    let error: unknown;
    try {
      compose(lead.stack, { plugins: lead.plugins, config: [{ "human-approval": { interruptOn: { write_file: { allowedDecisions: ["maybe"] } } } }] });
    } catch (e) {
      error = e;
    }
    expect(JSON.stringify((error as { problems?: unknown }).problems ?? String(error))).toContain("KEEL_ERR_CONFIG_INVALID");
    expect(JSON.stringify((error as { problems?: unknown }).problems ?? String(error))).toContain("interruptOn");
  });
});
