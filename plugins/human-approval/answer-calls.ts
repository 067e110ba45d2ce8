import { ToolMessage } from "@langchain/core/messages";
import { setKeelMeta } from "../../kernel/loop/message-meta.js";
import type { HookContext, ToolHandler, ToolRequest } from "../../kernel/plugin/types.js";
import { approvalsOf, isChildAgent, type ApprovalEntry } from "./approve-calls.js";
import { rejectionText } from "./decisions.js";
import { readPolicy } from "./policy.js";

function errorResult(request: ToolRequest, content: string): ToolMessage {
  const call = request.toolCall;
  return new ToolMessage({ id: `${call.id}:result`, tool_call_id: call.id, name: call.name, content, status: "error" });
}

/** The text a delegated child gets for a call the policy covers. */
export function subagentRefusal(tool: string): string {
  return (
    `KEEL_ERR_APPROVAL_REFUSED_IN_SUBAGENT: \`${tool}\` needs human approval under the human-approval policy (\`interruptOn.${tool}\`), ` +
    "and a delegated child cannot pause for it: the call was not run. Do without it, or report in your result that the lead must make this call."
  );
}

/**
 * wrapToolCall: a rejected call is answered with the rejection (status error) and never
 * runs; an approved or edited one runs and its result carries `keel.approval` (receipts
 * copy it). In a delegated child a call the policy covers is refused.
 */
export async function answerCall(request: ToolRequest, next: ToolHandler, ctx: HookContext): Promise<ToolMessage> {
  const call = request.toolCall;
  if (isChildAgent(ctx.agent)) {
    if (!readPolicy(ctx.config).tools.has(call.name)) return next(request);
    ctx.journal({ name: call.name, status: "refused", toolCallId: call.id });
    return errorResult(request, subagentRefusal(call.name));
  }
  const entry: ApprovalEntry | undefined = approvalsOf(request.state).findLast((a) => a.toolCallId === call.id);
  if (!entry) return next(request);
  const approval = { decision: entry.decision, ...(entry.by !== undefined ? { by: entry.by } : {}), at: entry.at };
  if (entry.decision === "reject") return setKeelMeta(errorResult(request, rejectionText(call, entry.message)), { approval }) as ToolMessage;
  const response = await next(request);
  setKeelMeta(response, { approval });
  return response;
}
