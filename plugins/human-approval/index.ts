import { definePlugin } from "../../kernel/plugin/define-plugin.js";
import { answerCall } from "./answer-calls.js";
import { approveCalls } from "./approve-calls.js";
import { humanApprovalManifest } from "./manifest.js";

/**
 * Human approval of tool calls, in LangChain v1's human-in-the-loop shape: the calls its
 * policy names pause the run before the tools step, and the resume's decisions approve,
 * edit or reject each of them.
 *
 * @example
 * { "extends": "lead", "plugins": [{ "name": "human-approval", "config": { "interruptOn": { "write_file": true, "bash": { "allowedDecisions": ["approve", "reject"] } } } }] }
 */
export const humanApprovalPlugin = definePlugin({
  manifest: humanApprovalManifest,
  hooks: { afterModel: approveCalls, wrapToolCall: answerCall },
});

export default humanApprovalPlugin;

export { APPROVALS_KEPT, DEFAULT_DESCRIPTION_PREFIX, humanApprovalConfigSchema, humanApprovalManifest } from "./manifest.js";
export { buildRequest, readPolicy, type ActionRequest, type ApprovalPolicy, type DecisionType, type HITLRequest, type ReviewConfig } from "./policy.js";
export { checkDecisions, rejectionText, type Decision } from "./decisions.js";
export { pendingCalls, type ApprovalEntry } from "./approve-calls.js";
export { subagentRefusal } from "./answer-calls.js";
