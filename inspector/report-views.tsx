import type { AcceptanceLeaf, Delegation, JournalEntry, ReportMessage, RunReport } from "./types.js";
import { stopReasonName } from "./types.js";
import { journalDetail, journalLabel } from "./timeline.js";
import { time } from "./format.js";

/** A delegation's agent path: the journal's agent that ends with `/<delegation id>`. */
function agentPathOf(delegation: Delegation, agents: readonly string[]): string {
  return delegation.agentPath ?? agents.find((agent) => agent.endsWith(`/${delegation.id}`)) ?? `?/${delegation.id}`;
}

export type Verdict = "holds" | "does not hold" | "UNVERIFIED";

export function leafVerdict(leaf: AcceptanceLeaf): Verdict {
  if (!leaf.checked) return "UNVERIFIED";
  return leaf.holds ? "holds" : "does not hold";
}

function Checklist(props: { delegation: Delegation }) {
  const verdict = props.delegation.acceptanceVerdict;
  if (!verdict) return <p class="muted">no acceptance criteria</p>;
  // `unchecked` names the criteria of the unchecked leaves (acceptance-verdict@1): a row only for one no leaf has.
  const leafCriteria = new Set(verdict.leaves.map((leaf) => leaf.criterion));
  const rows: Array<{ criterion: string; verdict: Verdict; detail?: string }> = [
    ...verdict.leaves.map((leaf) => ({ criterion: leaf.criterion, verdict: leafVerdict(leaf), ...(leaf.detail ? { detail: leaf.detail } : {}) })),
    ...(verdict.unchecked ?? []).filter((criterion) => !leafCriteria.has(criterion)).map((criterion) => ({ criterion, verdict: "UNVERIFIED" as const })),
  ];
  return (
    <table class="checklist" data-testid="acceptance-checklist">
      <tbody>
        {rows.map((row) => (
          <tr data-verdict={row.verdict}>
            <td class={`verdict verdict-${row.verdict.replace(/ /g, "-")}`}>{row.verdict}</td>
            <td>
              <code>{row.criterion}</code>
            </td>
            <td class="muted">{row.detail ?? ""}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function citationText(delegation: Delegation): string {
  const v = delegation.receiptVerdict;
  if (!v) return "no citation check";
  if (v.noCitationClaims) return "no citations claimed";
  const cited = v.cited?.length ?? 0;
  const resolved = v.resolved?.length ?? 0;
  const failed = v.failed?.length ?? 0;
  return `${v.citationResolved ? "citations resolved" : "citations NOT resolved"}: ${resolved}/${cited} resolved${failed ? `, ${failed} failed (${v.failed!.join(", ")})` : ""}${v.unknown?.length ? `, unknown ${v.unknown.join(", ")}` : ""}`;
}

/** The delegation tree: each subagent with its status, stop reasons, lease, citation verdict, checklist and own timeline. */
export function DelegationTree(props: { report: RunReport; journal: readonly JournalEntry[] }) {
  const agents = [...new Set(props.journal.map((e) => e.agent))];
  const nodes = props.report.delegations.map((d) => ({ delegation: d, path: agentPathOf(d, agents) }));
  const childrenOf = (parent: string) => nodes.filter((n) => n.path.slice(0, n.path.lastIndexOf("/")) === parent);
  const render = (parent: string): preact.JSX.Element | null => {
    const children = childrenOf(parent);
    if (children.length === 0) return null;
    return (
      <ul class="tree">
        {children.map(({ delegation, path }) => (
          <li data-testid="delegation" data-agent={path}>
            <div>
              <strong>{delegation.description ?? delegation.id}</strong> <span class="muted">{delegation.subagentType}</span> <span class={`chip status-${delegation.status}`}>{delegation.status}</span>
              {(delegation.stopReasons ?? []).length > 0 && <span class="stop-reasons"> stop: {delegation.stopReasons!.map(stopReasonName).join(", ")}</span>}
            </div>
            <div class="muted">
              agent <code>{path}</code>
              {delegation.lease && (
                <>
                  {" "}
                  · lease <code>{delegation.lease.leaseId}</code> epoch {delegation.lease.epoch}
                </>
              )}
              {delegation.usage && <> · {delegation.usage.totalTokens} tokens</>}
            </div>
            <div data-testid="citation-verdict">{citationText(delegation)}</div>
            <Checklist delegation={delegation} />
            <details>
              <summary>its timeline ({props.journal.filter((e) => e.agent === path).length} journal entries)</summary>
              <ol class="mini-timeline">
                {props.journal
                  .filter((e) => e.agent === path)
                  .map((e) => (
                    <li>
                      {time(e.at)} {journalLabel(e)} — {journalDetail(e)}
                    </li>
                  ))}
              </ol>
            </details>
            {render(path)}
          </li>
        ))}
      </ul>
    );
  };
  if (nodes.length === 0) return <p class="muted">No subagents.</p>;
  return <div data-testid="delegation-tree">{render("lead") ?? render(nodes[0]!.path.slice(0, nodes[0]!.path.lastIndexOf("/")))}</div>;
}

function MessageView(props: { message: ReportMessage }) {
  const { message } = props;
  const calls = message.toolCalls?.map((c) => `${c.name}(${JSON.stringify(c.args)})`).join("\n");
  const body = (
    <>
      <pre>{message.content}</pre>
      {calls && <pre class="tool-calls">{calls}</pre>}
    </>
  );
  if (message.role === "system") {
    return (
      <details class="msg msg-system" data-testid="system-prompt">
        <summary>system prompt ({message.content.length} characters){message.hidden ? " · hidden" : ""}</summary>
        {body}
      </details>
    );
  }
  return (
    <div class={`msg msg-${message.role}${message.hidden ? " msg-hidden" : ""}`} data-hidden={message.hidden ? "true" : "false"}>
      <div class="role">
        {message.role}
        {message.hidden && <span class="hidden-mark"> · hidden (sent to the model, not part of the transcript)</span>}
      </div>
      {body}
    </div>
  );
}

/** Each model request as the provider saw it. */
export function ModelRequests(props: { report: RunReport }) {
  return (
    <div data-testid="model-requests">
      {props.report.modelRequests.map((request) => (
        <details class="model-request">
          <summary>
            {request.agent} · turn {request.turn} · {request.messages.length} messages{request.messages.some((m) => m.hidden) ? ` (${request.messages.filter((m) => m.hidden).length} hidden)` : ""}
          </summary>
          {request.messages.map((m) => (
            <MessageView message={m} />
          ))}
        </details>
      ))}
    </div>
  );
}

const WRITE_TOOLS = new Set(["write_file", "edit_file", "create_file", "apply_patch"]);

/** Files the run wrote, each with the receipt of every write (joined on the tool call id). */
export function FilesWritten(props: { report: RunReport }) {
  const { report } = props;
  const calls = new Map<string, { name: string; path: string; agent: string }>();
  const collect = (messages: readonly ReportMessage[], agent: string) => {
    for (const m of messages) for (const call of m.toolCalls ?? []) if (WRITE_TOOLS.has(call.name) && typeof call.args.path === "string") calls.set(call.id, { name: call.name, path: call.args.path, agent });
  };
  collect(report.messages, "lead");
  for (const request of report.modelRequests) collect(request.messages, request.agent);
  const writes = new Map<string, Array<{ agent: string; receipt: RunReport["receipts"][string][number] | undefined; tool: string }>>();
  const receiptByCall = new Map<string, { agent: string; receipt: RunReport["receipts"][string][number] }>();
  for (const [agent, receipts] of Object.entries(report.receipts ?? {})) for (const receipt of receipts) receiptByCall.set(receipt.toolCallId, { agent, receipt });
  for (const [callId, call] of calls) {
    const found = receiptByCall.get(callId);
    writes.set(call.path, [...(writes.get(call.path) ?? []), { agent: found?.agent ?? call.agent, receipt: found?.receipt, tool: call.name }]);
  }
  const files = report.workspace?.files ?? {};
  const paths = [...new Set([...writes.keys(), ...Object.keys(files)])].sort();
  if (paths.length === 0) return <p class="muted">No files.</p>;
  return (
    <table class="files" data-testid="files">
      <thead>
        <tr>
          <th>file</th>
          <th>now</th>
          <th>writes (receipts)</th>
        </tr>
      </thead>
      <tbody>
        {paths.map((path) => (
          <tr data-file={path}>
            <td>
              <code>{path}</code>
            </td>
            <td>{files[path] ? `${files[path]!.bytes} B · sha256 ${files[path]!.sha256.slice(0, 12)}` : "gone"}</td>
            <td>
              {(writes.get(path) ?? []).length === 0 ? (
                <span class="muted">not written by this run</span>
              ) : (
                (writes.get(path) ?? []).map((w) => (
                  <div class="receipt">
                    {w.receipt ? (
                      <>
                        <code>{w.receipt.id}</code> {w.tool} by <code>{w.agent}</code> · {w.receipt.status} · {time(w.receipt.createdAt)} · out {w.receipt.outputSha256}
                      </>
                    ) : (
                      <>
                        {w.tool} by <code>{w.agent}</code> · no receipt
                      </>
                    )}
                  </div>
                ))
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export interface BudgetLines {
  limit: number;
  warnAt: number;
  returnReserve: number;
}

const COLORS = ["#2563eb", "#dc2626", "#16a34a", "#9333ea", "#ea580c", "#0891b2", "#ca8a04"];

/** Cumulative tokens per agent over the run (from the journal's model calls), with the lead's budget lines. */
export function TokenChart(props: { journal: readonly JournalEntry[]; budget: BudgetLines | null }) {
  const calls = props.journal.filter((e) => e.kind === "model_call" && e.usage);
  if (calls.length === 0) return <p class="muted">No model calls yet.</p>;
  const start = Date.parse(props.journal[0]!.at);
  const end = Math.max(start + 1, ...calls.map((e) => Date.parse(e.at)));
  const series = new Map<string, Array<[number, number]>>();
  for (const e of calls) {
    const points = series.get(e.agent) ?? [[start, 0]];
    points.push([Date.parse(e.at), points[points.length - 1]![1] + e.usage!.totalTokens]);
    series.set(e.agent, points);
  }
  const maxUsed = Math.max(...[...series.values()].map((p) => p[p.length - 1]![1]));
  const lines = props.budget
    ? [
        { name: "warn", value: props.budget.limit * props.budget.warnAt },
        { name: "stop", value: props.budget.limit * (1 - props.budget.returnReserve) },
        { name: "limit (return reserve above stop)", value: props.budget.limit },
      ]
    : [];
  // The budget lines share the scale when they are near the usage; far above it they are listed instead.
  const onScale = lines.filter((l) => l.value <= maxUsed * 4);
  const yMax = Math.max(maxUsed, ...onScale.map((l) => l.value)) * 1.05;
  const W = 640;
  const H = 200;
  const x = (t: number) => 40 + ((t - start) / (end - start)) * (W - 50);
  const y = (v: number) => H - 20 - (v / yMax) * (H - 30);
  return (
    <div data-testid="token-chart">
      <svg viewBox={`0 0 ${W} ${H}`} width={W} height={H} role="img" aria-label="tokens per agent over time">
        <line x1={40} y1={H - 20} x2={W - 10} y2={H - 20} stroke="#999" />
        <line x1={40} y1={10} x2={40} y2={H - 20} stroke="#999" />
        <text x={2} y={14} font-size="10">
          {Math.round(yMax)}
        </text>
        {onScale.map((l) => (
          <g data-budget-line={l.name}>
            <line x1={40} x2={W - 10} y1={y(l.value)} y2={y(l.value)} stroke="#f59e0b" stroke-dasharray="4 3" />
            <text x={W - 12} y={y(l.value) - 2} font-size="10" text-anchor="end">
              {l.name} {Math.round(l.value)}
            </text>
          </g>
        ))}
        {[...series.entries()].map(([agent, points], i) => (
          <polyline data-agent={agent} fill="none" stroke={COLORS[i % COLORS.length]} stroke-width="2" points={points.map(([t, v]) => `${x(t).toFixed(1)},${y(v).toFixed(1)}`).join(" ")} />
        ))}
      </svg>
      <ul class="legend">
        {[...series.entries()].map(([agent, points], i) => (
          <li>
            <span class="swatch" style={{ background: COLORS[i % COLORS.length] }} /> <code>{agent}</code> {points[points.length - 1]![1]} tokens
          </li>
        ))}
        {lines
          .filter((l) => !onScale.includes(l))
          .map((l) => (
            <li class="muted">
              budget {l.name}: {Math.round(l.value)} tokens (off the chart's scale)
            </li>
          ))}
      </ul>
    </div>
  );
}
