import type { ReportMessage, RunReportV1 } from "../../contracts/run-report/v1.js";
import type { AgentScript, ScenarioV1, ScriptedTurn, ToolFixture } from "../../contracts/scenario/v1.js";
import type { StackV1 } from "../../contracts/stack/v1.js";
import { KeelError } from "../../kernel/errors.js";
import { BUILTIN_STACKS, readStack } from "../stacks/load-stack.js";
import { scriptedBashOf } from "./tool-fixtures.js";

/** The tool a child ends with; never a fixture (the kernel handles it). */
const RETURN_TOOL = "return_result";

export interface ReplayScenarioOptions {
  /** The stack to replay on (a built-in name, a stack file path, or an inline stack); default: the recorded composition. */
  stack?: string | StackV1;
  /** The scenario's name; default the recorded one (a scenario seeds its thread and run ids from its name). */
  name?: string;
}

type Request = RunReportV1["modelRequests"][number];

/**
 * Turn a recorded run's report (run-report@1) into a scenario@1 that replays it: each agent
 * path's model answers as its own script (`agentPaths`), every recorded tool result as a
 * fixture (`toolResults`) except the calls that delegate to a child (the child runs again)
 * and a child's `return_result`. The report keeps no answer after an agent's last model
 * request: the lead's is its last message; a child's is rebuilt from its delegation.
 */
export function reportToScenario(report: RunReportV1, options: ReplayScenarioOptions = {}): ScenarioV1 {
  const byAgent = new Map<string, Request[]>();
  for (const request of report.modelRequests) {
    const list = byAgent.get(request.agent) ?? [];
    list.push(request);
    byAgent.set(request.agent, list);
  }
  const leadRequests = byAgent.get("lead");
  if (!leadRequests || leadRequests.length === 0) throw replayError("the report has no model request of the lead: there is nothing to replay");
  const first = leadRequests.sort((a, b) => a.turn - b.turn)[0]!;
  const input = [...first.messages].reverse().find((m) => m.role === "user" && !m.hidden)?.content;
  if (input === undefined) throw replayError("the lead's first model request holds no user message: the run's input is unknown");

  const agentPaths: Record<string, AgentScript> = {};
  const toolResults: ToolFixture[] = [];
  const childPaths = new Set(byAgent.keys());
  for (const [agent, requests] of byAgent) {
    requests.sort((a, b) => a.turn - b.turn);
    const turns: ScriptedTurn[] = [];
    for (let i = 1; i < requests.length; i++) {
      const answer = lastAssistant(requests[i]!.messages);
      turns.push(answer ? toTurn(answer, agent, turns.length + 1) : {});
    }
    turns.push(finalAnswer(report, agent, turns.length + 1));
    const usage = childUsagePerTurn(report, agent);
    if (usage && usage.length === turns.length) turns.forEach((turn, i) => (turn.usage = usage[i]!));
    agentPaths[agent] = { turns, then: "stop" };
    // Tool results: the last request of an agent holds all but its final turn's; the lead's `messages` hold all.
    const messages = agent === "lead" ? [...requests.flatMap((r) => r.messages), ...report.messages] : requests.flatMap((r) => r.messages);
    toolResults.push(...fixturesOf(agent, messages, childPaths, toolResults));
  }

  // The subagent types the lead delegated to (the child runner offers only the scenario's types); each child keeps its own path's script.
  const agents: ScenarioV1["agents"] = { lead: agentPaths.lead! };
  for (const d of report.delegations as Array<{ id?: unknown; subagentType?: unknown }>) {
    if (typeof d.subagentType !== "string" || d.subagentType === "lead" || agents[d.subagentType]) continue;
    const path = [...byAgent.keys()].find((a) => a.endsWith(`/${String(d.id)}`));
    agents[d.subagentType] = path ? agentPaths[path]! : { turns: [] };
  }
  // Recorded bash results become scripted bash answers (exact command; the first recording of a command wins), so no command runs.
  const bash: NonNullable<ScenarioV1["bash"]> = [];
  const seenCommands = new Set<string>();
  for (const fixture of toolResults.filter((f) => f.tool === "bash")) {
    const command = commandOf(report, fixture);
    if (command === undefined || seenCommands.has(command)) continue;
    seenCommands.add(command);
    bash.push(scriptedBashOf(command, fixture.content));
  }
  const stack = options.stack ?? recordedStack(report);
  return {
    contract: "scenario",
    version: 1,
    name: options.name ?? report.scenario,
    stack,
    input,
    agents,
    agentPaths,
    toolResults: toolResults.filter((f) => f.tool !== "bash"),
    ...(bash.length > 0 ? { bash } : {}),
  };
}

function commandOf(report: RunReportV1, fixture: ToolFixture): string | undefined {
  const messages = [...report.modelRequests.filter((r) => r.agent === fixture.agent).flatMap((r) => r.messages), ...(fixture.agent === "lead" ? report.messages : [])];
  for (const m of messages) for (const call of m.toolCalls ?? []) if (call.id === fixture.toolCallId && typeof call.args.command === "string") return call.args.command;
  return undefined;
}

/**
 * The stack the run was recorded on: the built-in stack with exactly the recorded lead
 * plugins (its options come with it), else the recorded composition as an inline stack (the
 * plugins in their composed order, with their default options: the report keeps no options).
 */
function recordedStack(report: RunReportV1): string | StackV1 {
  const recorded = [...report.composition.lead].sort().join(",");
  for (const name of BUILTIN_STACKS) {
    const plugins = readStack(name).stack.plugins.map((p) => (typeof p === "string" ? p : "name" in p ? p.name : p.module));
    if ([...plugins].sort().join(",") === recorded) return name;
  }
  const stack: StackV1 = { name: "recorded", plugins: [...report.composition.lead] };
  if (report.composition.subagent) stack.subagentStack = { name: "recorded-subagent", plugins: [...report.composition.subagent] };
  return stack;
}

/**
 * A child's token usage per model call, from its `task` events (one `running` event per call,
 * cumulative usage), so the replayed child spends what the recorded one did. The lead's
 * per-call usage is not in the report: its scripted model estimates it again.
 */
function childUsagePerTurn(report: RunReportV1, agent: string): Array<{ input_tokens: number; output_tokens: number }> | undefined {
  if (agent === "lead") return undefined;
  const totals: Array<{ inputTokens: number; outputTokens: number }> = [];
  for (const e of report.events) {
    const data = e.data as { phase?: string; agent?: string; usage?: { inputTokens: number; outputTokens: number } } | null;
    if (e.event === "task" && data?.phase === "running" && data.agent === agent && data.usage) totals.push(data.usage);
  }
  if (totals.length === 0) return undefined;
  return totals.map((t, i) => ({
    input_tokens: Math.max(0, t.inputTokens - (totals[i - 1]?.inputTokens ?? 0)),
    output_tokens: Math.max(0, t.outputTokens - (totals[i - 1]?.outputTokens ?? 0)),
  }));
}

function lastAssistant(messages: readonly ReportMessage[]): ReportMessage | undefined {
  return [...messages].reverse().find((m) => m.role === "assistant" && !m.hidden);
}

/**
 * A recorded answer as a scripted turn. A tool call id is kept unless it is the one the
 * scripted model gives anyway (a recorded scenario's), so the model's usage estimate, which
 * counts the script's tool calls, stays what it was.
 */
function toTurn(message: ReportMessage, agent: string, turnNumber: number): ScriptedTurn {
  const turn: ScriptedTurn = {};
  if (message.content !== "") turn.content = message.content;
  if (message.toolCalls && message.toolCalls.length > 0) {
    turn.toolCalls = message.toolCalls.map((c, i) => (c.id === scriptedCallId(agent, turnNumber, i) ? { name: c.name, args: c.args } : { id: c.id, name: c.name, args: c.args }));
  }
  return turn;
}

/** The id the scripted model gives the `index`-th call of a turn without one. */
function scriptedCallId(agent: string, turnNumber: number, index: number): string {
  return `call_${agent.replace(/\//g, "_")}_${turnNumber}_${index + 1}`;
}

/** An agent's answer after its last model request: the lead's last message, or a child's return rebuilt from its delegation. */
function finalAnswer(report: RunReportV1, agent: string, turnNumber: number): ScriptedTurn {
  if (agent === "lead") {
    const last = lastAssistant(report.messages);
    return last ? toTurn(last, agent, turnNumber) : { content: report.outcome.text };
  }
  const taskId = agent.slice(agent.lastIndexOf("/") + 1);
  const delegation = report.delegations.find((d) => d.id === taskId) as { status?: string; resultBrief?: string } | undefined;
  const brief = delegation?.resultBrief ?? "";
  const parsed = /Result: ([\s\S]*?)(?:\nCompleted steps: (.*)\nMissing steps: (.*?)(?: \(stopped at: .*\))?)?(?:\n|$)/.exec(brief);
  const status = delegation?.status;
  if (!parsed || (status !== "succeeded" && status !== "partial")) return { content: brief };
  const steps = (s: string | undefined) => (s === undefined || s === "none" ? [] : s.split("; "));
  return {
    toolCalls: [{ name: RETURN_TOOL, args: { status: status === "partial" ? "partial" : "succeeded", text: parsed[1]!, completedSteps: steps(parsed[2]), missingSteps: steps(parsed[3]) } }],
  };
}

function fixturesOf(agent: string, messages: readonly ReportMessage[], childPaths: ReadonlySet<string>, already: readonly ToolFixture[]): ToolFixture[] {
  const names = new Map<string, string>();
  for (const m of messages) for (const call of m.toolCalls ?? []) names.set(call.id, call.name);
  const seen = new Set(already.filter((f) => f.agent === agent).map((f) => f.toolCallId));
  const out: ToolFixture[] = [];
  for (const m of messages) {
    if (m.role !== "tool" || m.toolCallId === undefined || seen.has(m.toolCallId)) continue;
    const tool = names.get(m.toolCallId);
    // A call that delegated runs again (its child is replayed); `return_result` is the kernel's.
    if (tool === undefined || tool === RETURN_TOOL || childPaths.has(`${agent}/${m.toolCallId}`)) continue;
    seen.add(m.toolCallId);
    out.push({ agent, toolCallId: m.toolCallId, tool, content: m.content, ...(m.status ? { status: m.status } : {}) });
  }
  return out;
}

function replayError(message: string): KeelError {
  return new KeelError("KEEL_ERR_REPLAY_REPORT", message);
}
