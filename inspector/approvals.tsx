import { useState } from "preact/hooks";
import { AuthRequired, enc, postJson } from "./api.js";
import { runHref } from "./format.js";
import type { Run, Thread } from "./types.js";

/** LangChain v1's human-in-the-loop request: the interrupt value of a paused run. */
export interface HitlRequest {
  actionRequests: Array<{ name: string; args: Record<string, unknown>; description?: string }>;
  reviewConfigs?: Array<{ actionName: string; allowedDecisions?: string[] }>;
}

type Decision = { type: "approve" } | { type: "edit"; editedAction: { name: string; args: Record<string, unknown> } } | { type: "reject"; message: string };

function isHitl(value: unknown): value is HitlRequest {
  return typeof value === "object" && value !== null && Array.isArray((value as HitlRequest).actionRequests);
}

/** The pending HITL requests of an interrupted thread (its `interrupts`, each task's values). */
export function pendingRequests(thread: Thread): HitlRequest[] {
  return Object.values(thread.interrupts ?? {})
    .flat()
    .map((i) => i.value)
    .filter(isHitl);
}

/** Approve / edit / reject each pending tool call, then resume the run with `command.resume.decisions`. */
export function Approvals(props: { thread: Thread; run: Run; requests: HitlRequest[]; onAuth: (error: AuthRequired) => void }) {
  const actions = props.requests.flatMap((r) => r.actionRequests.map((action) => ({ action, allowed: r.reviewConfigs?.find((c) => c.actionName === action.name)?.allowedDecisions ?? ["approve", "edit", "reject"] })));
  const [choices, setChoices] = useState<string[]>(actions.map(() => "approve"));
  const [edited, setEdited] = useState<string[]>(actions.map(({ action }) => JSON.stringify(action.args, null, 2)));
  const [messages, setMessages] = useState<string[]>(actions.map(() => ""));
  const [error, setError] = useState<string | null>(null);
  const submit = async () => {
    setError(null);
    let decisions: Decision[];
    try {
      decisions = actions.map(({ action }, i): Decision => {
        if (choices[i] === "edit") return { type: "edit", editedAction: { name: action.name, args: JSON.parse(edited[i]!) as Record<string, unknown> } };
        if (choices[i] === "reject") return { type: "reject", message: messages[i] || "rejected by the reviewer" };
        return { type: "approve" };
      });
    } catch {
      return setError("the edited arguments are not JSON");
    }
    try {
      const resumed = await postJson<Run>(`/threads/${enc(props.thread.thread_id)}/runs`, { assistant_id: props.run.assistant_id, command: { resume: { decisions } } });
      location.hash = runHref(resumed.thread_id, resumed.run_id);
    } catch (caught) {
      if (caught instanceof AuthRequired) return props.onAuth(caught);
      setError(caught instanceof Error ? caught.message : String(caught));
    }
  };
  const set = (list: string[], i: number, value: string) => list.map((old, j) => (j === i ? value : old));
  return (
    <div class="approvals" data-testid="approvals">
      <h3>Awaiting approval</h3>
      {actions.map(({ action, allowed }, i) => (
        <div class="approval" data-action={action.name}>
          <div>
            <strong>{action.name}</strong> {action.description && <span class="muted">{action.description}</span>}
          </div>
          <pre>{JSON.stringify(action.args, null, 2)}</pre>
          {allowed.map((decision) => (
            <label>
              <input type="radio" name={`decision-${i}`} value={decision} checked={choices[i] === decision} data-testid={`decision-${decision}`} onChange={() => setChoices(set(choices, i, decision))} /> {decision}{" "}
            </label>
          ))}
          {choices[i] === "edit" && <textarea rows={4} cols={60} data-testid="edit-args" value={edited[i]} onInput={(e) => setEdited(set(edited, i, (e.target as HTMLTextAreaElement).value))} />}
          {choices[i] === "reject" && <input type="text" placeholder="why (sent to the model)" data-testid="reject-message" value={messages[i]} onInput={(e) => setMessages(set(messages, i, (e.target as HTMLInputElement).value))} />}
        </div>
      ))}
      <button type="button" data-testid="resume" onClick={submit}>
        Send decisions and resume
      </button>
      {error && <span class="error"> {error}</span>}
    </div>
  );
}
