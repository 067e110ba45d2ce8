import type { ReportMessage, RunReportV1 } from "../../contracts/run-report/v1.js";
import type { StatusV2, StopReason } from "../../contracts/status/v2.js";

/** The first place a replay went another way than its recording. */
export interface ReplayDivergence {
  /** The agent path (`lead`, `lead/<taskToolCallId>`). */
  agent: string;
  /** The agent's model-call number where it diverged (1-based). */
  turn: number;
  /** What differs, in words. */
  reason: string;
}

export interface ReplayComparison {
  /** Same outcome: status, primary stop reason, stop reasons (reason, by, turn) and final text. */
  same: boolean;
  /** The first turn that went another way, when any did (also when the outcomes are the same). */
  divergence?: ReplayDivergence;
}

const stopKey = (s: StopReason) => `${s.reason} by ${s.by}${s.turn === undefined ? "" : ` at turn ${s.turn}`}`;

function outcomeKey(o: StatusV2): string {
  return JSON.stringify([o.status, o.primaryStopReason ?? null, o.stopReasons.map(stopKey), o.text]);
}

type Request = RunReportV1["modelRequests"][number];

function requestsOf(report: RunReportV1): Map<string, Map<number, Request>> {
  const out = new Map<string, Map<number, Request>>();
  for (const r of report.modelRequests) {
    if (!out.has(r.agent)) out.set(r.agent, new Map());
    out.get(r.agent)!.set(r.turn, r);
  }
  return out;
}

const short = (text: string) => (text.length > 80 ? `${text.slice(0, 80)}…` : text);
const messageKey = (m: ReportMessage) => JSON.stringify([m.role, m.content, m.hidden, m.toolCalls?.map((c) => [c.name, c.args]) ?? [], m.status ?? null]);

/**
 * Why two model requests of the same agent and turn differ, or undefined when they do not.
 * `earlier` marks a difference in a tool result: it belongs to the previous turn's calls.
 */
function requestDifference(recorded: Request, replayed: Request): { reason: string; earlier?: true } | undefined {
  if (JSON.stringify(recorded.tools) !== JSON.stringify(replayed.tools)) {
    if (replayed.tools.length === 0) return { reason: "the replay forced a final answer (no tools offered); the recording offered tools" };
    if (recorded.tools.length === 0) return { reason: "the recording forced a final answer (no tools offered); the replay offered tools" };
    return { reason: `tools offered differ: recorded [${recorded.tools.join(", ")}], replayed [${replayed.tools.join(", ")}]` };
  }
  const n = Math.max(recorded.messages.length, replayed.messages.length);
  for (let i = 0; i < n; i++) {
    const a = recorded.messages[i];
    const b = replayed.messages[i];
    if (a && b && messageKey(a) === messageKey(b)) continue;
    const describe = (m: ReportMessage | undefined) => (m === undefined ? "nothing" : `${m.hidden ? "hidden " : ""}${m.role}${m.status === "error" ? " (error)" : ""} \`${short(m.content)}\``);
    if (a?.role === "tool" && b?.role === "tool" && a.toolCallId === b.toolCallId) {
      const call = [...replayed.messages.slice(0, i)].reverse().flatMap((m) => m.toolCalls ?? []).find((c) => c.id === b.toolCallId);
      return { reason: `the result of ${call ? `${call.name} call ` : "call "}${b.toolCallId} differs: recorded ${describe(a)}, replayed ${describe(b)}`, earlier: true };
    }
    return { reason: `message ${i + 1} differs: recorded ${describe(a)}, replayed ${describe(b)}` };
  }
  return undefined;
}

/** Stop reasons by agent path and turn, from the outcome and the delegations (a child's). */
function stopsAt(report: RunReportV1, agent: string, turn: number): string[] {
  const own =
    agent === "lead"
      ? report.outcome.stopReasons
      : ((report.delegations.find((d) => `lead/${d.id as string}` === agent || agent.endsWith(`/${d.id as string}`))?.stopReasons as StopReason[] | undefined) ?? []);
  return own.filter((s) => s.turn === turn).map(stopKey);
}

/**
 * Compare a recording with its replay: whether the outcomes are the same, and the first turn
 * (lead first, then each child in the order the recording first called it) where a model
 * request differs (a guard warned or forced a final answer, a call was refused, a tool
 * result changed) or a stop reason was raised at another turn.
 */
export function compareReplay(recorded: RunReportV1, replayed: RunReportV1): ReplayComparison {
  const same = outcomeKey(recorded.outcome) === outcomeKey(replayed.outcome);
  const a = requestsOf(recorded);
  const b = requestsOf(replayed);
  const agents = [...new Set([...a.keys(), ...b.keys()])];
  for (const agent of agents) {
    const turns = [...new Set([...(a.get(agent)?.keys() ?? []), ...(b.get(agent)?.keys() ?? [])])].sort((x, y) => x - y);
    for (const turn of turns) {
      const stopsA = stopsAt(recorded, agent, turn);
      const stopsB = stopsAt(replayed, agent, turn);
      if (JSON.stringify(stopsA) !== JSON.stringify(stopsB)) {
        return { same, divergence: { agent, turn, reason: `stop reasons at this turn: recorded [${stopsA.join(", ") || "none"}], replayed [${stopsB.join(", ") || "none"}]` } };
      }
      const ra = a.get(agent)?.get(turn);
      const rb = b.get(agent)?.get(turn);
      if (!ra || !rb) {
        const reason = ra ? "the replay made no model call at this turn (it ended earlier)" : "the replay made a model call the recording did not (it ran longer)";
        return { same, divergence: { agent, turn, reason } };
      }
      const difference = requestDifference(ra, rb);
      if (difference) return { same, divergence: { agent, turn: difference.earlier && turn > 1 ? turn - 1 : turn, reason: difference.reason } };
    }
  }
  if (!same) return { same, divergence: { agent: "lead", turn: Math.max(recorded.turns.lead ?? 0, replayed.turns.lead ?? 0), reason: "the final answers differ" } };
  return { same };
}
