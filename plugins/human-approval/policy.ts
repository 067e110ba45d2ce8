import { DEFAULT_DESCRIPTION_PREFIX } from "./manifest.js";

/** LangChain v1's decision types (`DecisionType`). */
export type DecisionType = "approve" | "edit" | "reject";
export const ALL_DECISIONS: readonly DecisionType[] = ["approve", "edit", "reject"];

/** The policy of one tool once resolved: which decisions a human may make on its calls. */
export interface ToolPolicy {
  allowedDecisions: DecisionType[];
  description?: string;
}

export interface ApprovalPolicy {
  tools: ReadonlyMap<string, ToolPolicy>;
  descriptionPrefix: string;
}

/** LangChain's `ActionRequest`. */
export interface ActionRequest {
  name: string;
  args: Record<string, unknown>;
  description?: string;
}

/** LangChain's `ReviewConfig`. */
export interface ReviewConfig {
  actionName: string;
  allowedDecisions: DecisionType[];
}

/**
 * LangChain's `HITLRequest`, the interrupt's value. `error` is Keel's addition: the
 * previous resume's decisions were invalid (KEEL_ERR_APPROVAL_DECISION_INVALID) and none applied.
 */
export interface HITLRequest {
  actionRequests: ActionRequest[];
  reviewConfigs: ReviewConfig[];
  error?: { code: "KEEL_ERR_APPROVAL_DECISION_INVALID"; message: string };
}

/** A pending call: the AI message's tool call the policy covers. */
export interface PendingCall {
  id: string;
  name: string;
  args: Record<string, unknown>;
}

/**
 * The validated options as a policy: `true` allows every decision, `false` (or a tool not
 * named) needs no approval, an object gives its own decisions and description.
 */
export function readPolicy(config: Readonly<Record<string, unknown>>): ApprovalPolicy {
  const tools = new Map<string, ToolPolicy>();
  const interruptOn = (config.interruptOn ?? {}) as Record<string, boolean | { allowedDecisions: DecisionType[]; description?: string }>;
  for (const [tool, rule] of Object.entries(interruptOn)) {
    if (rule === true) tools.set(tool, { allowedDecisions: [...ALL_DECISIONS] });
    else if (rule && typeof rule === "object") tools.set(tool, { allowedDecisions: [...rule.allowedDecisions], ...(rule.description !== undefined ? { description: rule.description } : {}) });
  }
  const prefix = typeof config.descriptionPrefix === "string" ? config.descriptionPrefix : DEFAULT_DESCRIPTION_PREFIX;
  return { tools, descriptionPrefix: prefix };
}

/** The interrupt's value for these calls, in their order (as LangChain's middleware builds it). */
export function buildRequest(calls: readonly PendingCall[], policy: ApprovalPolicy): HITLRequest {
  return {
    actionRequests: calls.map((call) => ({ name: call.name, args: call.args, description: describe(call, policy) })),
    reviewConfigs: calls.map((call) => ({ actionName: call.name, allowedDecisions: [...policy.tools.get(call.name)!.allowedDecisions] })),
  };
}

function describe(call: PendingCall, policy: ApprovalPolicy): string {
  const own = policy.tools.get(call.name)?.description;
  return own ?? `${policy.descriptionPrefix}\n\nTool: ${call.name}\nArgs: ${JSON.stringify(call.args, null, 2)}`;
}
