/**
 * Pauses of the agent loop (human in the loop): LangGraph's static interrupts
 * (`interruptBefore` / `interruptAfter` on the loop's nodes `agent`, `tools`), its dynamic
 * `interrupt()` called inside a node or a hook, and the resume (`Command` or `null` input)
 * that continues a paused thread. A paused run ends `partial` with the stop reason
 * `awaiting_input`; its turn, token and loop budgets carry over to the resume runs.
 */
import { Command, isGraphBubbleUp, Send, type StateSnapshot } from "@langchain/langgraph";
import { KeelError } from "../errors.js";
import type { StopReason } from "./status.js";

/** The loop's compiled nodes: the only names `interruptBefore` / `interruptAfter` accept (or `*`: all). */
export const LOOP_NODES = ["agent", "tools"] as const;
export type LoopNode = (typeof LOOP_NODES)[number];
export type InterruptNodes = "*" | readonly LoopNode[];

/** Where a run stops for input besides `interrupt()`: before and/or after these nodes. */
export interface InterruptPoints {
  before?: InterruptNodes;
  after?: InterruptNodes;
}

/** LangGraph's `Command` as a run request carries it (the Agent Server's `command`). */
export interface ResumeCommand {
  /** The value `interrupt()` returns on resume (a map of interrupt id → value resumes several). */
  resume?: unknown;
  /** Channel updates applied before the loop continues (as if written by the input). */
  update?: Record<string, unknown> | readonly [string, unknown][] | null;
  /** Where the loop continues: a node name, a list of them, or `{ node, input }` sends. */
  goto?: string | { node: string; input?: unknown } | readonly (string | { node: string; input?: unknown })[] | null;
}

/** The stop reason of a paused run (status@2: the run is `partial`, the thread waits for input). */
export const AWAITING_INPUT = "awaiting_input";

/**
 * `value` as interrupt nodes, or a KeelError `KEEL_ERR_RUN_INTERRUPT_NODE_UNKNOWN` naming
 * the unknown node (with `pointer`): `"*"` or a list of `agent` / `tools`.
 */
export function checkInterruptNodes(value: unknown, pointer: string): InterruptNodes | undefined {
  if (value === undefined || value === null) return undefined;
  if (value === "*") return "*";
  if (!Array.isArray(value)) throw new KeelError("KEEL_ERR_RUN_INTERRUPT_NODE_UNKNOWN", `\`${pointer}\` must be "*" or a list of the loop's node names (${LOOP_NODES.join(", ")})`, { pointer });
  value.forEach((node, i) => {
    if (!(LOOP_NODES as readonly unknown[]).includes(node)) {
      throw new KeelError("KEEL_ERR_RUN_INTERRUPT_NODE_UNKNOWN", `\`${pointer}/${i}\` names ${typeof node === "string" ? `node \`${node}\`` : "no node"}: the loop's nodes are ${LOOP_NODES.join(", ")} (or "*" for all)`, { pointer: `${pointer}/${i}` });
    }
  });
  return [...new Set(value as LoopNode[])];
}

/** Does a pause happen at `node` for these points? */
export function pausesAt(nodes: InterruptNodes | undefined, node: string): boolean {
  return nodes === "*" || (nodes !== undefined && (nodes as readonly string[]).includes(node));
}

/** LangGraph's own `interruptBefore` / `interruptAfter` options for these points (absent: none). */
export function interruptOptions(points: InterruptPoints | undefined): { interruptBefore?: LoopNode[] | "*"; interruptAfter?: LoopNode[] | "*" } {
  const out: { interruptBefore?: LoopNode[] | "*"; interruptAfter?: LoopNode[] | "*" } = {};
  if (points?.before !== undefined) out.interruptBefore = points.before === "*" ? "*" : [...points.before];
  if (points?.after !== undefined) out.interruptAfter = points.after === "*" ? "*" : [...points.after];
  return out;
}

/**
 * The graph input of a resume: LangGraph's `Command` (as the Agent Server's
 * `getLangGraphCommand` builds it), with the run's own channel writes (`extra`, e.g. the
 * new run's identity) merged into its update.
 */
export function resumeCommand(command: ResumeCommand | undefined, extra: Record<string, unknown>): Command {
  const goto = command?.goto == null ? undefined : Array.isArray(command.goto) ? command.goto : [command.goto];
  const given = command?.update == null ? {} : Array.isArray(command.update) ? Object.fromEntries(command.update as [string, unknown][]) : (command.update as Record<string, unknown>);
  return new Command({
    ...(command?.resume !== undefined ? { resume: command.resume } : {}),
    update: { ...given, ...extra },
    ...(goto ? { goto: goto.map((item) => (typeof item === "string" ? item : new Send(item.node, item.input))) } : {}),
  });
}

/**
 * A GraphInterrupt (or another of LangGraph's bubble-ups, a `Command` to a parent) on its
 * way out of a node: never a fault, never a tool error, never retried. Every catch in the
 * loop, its hook runner and its retry layers lets it pass.
 */
export function isGraphPause(error: unknown): boolean {
  return isGraphBubbleUp(error);
}

/** What a paused thread waits for, read from its checkpoint (null: not paused). */
export interface PauseState {
  /** The nodes the loop continues with (LangGraph's `next`). */
  next: string[];
  /** The values given to `interrupt()` (none for a static interrupt). */
  interrupts: Array<{ id?: string; value?: unknown }>;
}

export function pauseOf(snapshot: Pick<StateSnapshot, "next" | "tasks"> | undefined): PauseState | null {
  const next = snapshot ? pendingNodes(snapshot) : [];
  if (!snapshot || next.length === 0) return null;
  return { next, interrupts: snapshot.tasks.flatMap((task) => task.interrupts.map((i) => ({ ...(i.id !== undefined ? { id: i.id } : {}), value: i.value }))) };
}

/**
 * The nodes a thread continues with: LangGraph's `next`, plus each task waiting at an
 * `interrupt()`. LangGraph leaves out of `next` a task that has pending writes, and a task
 * that was resumed and called `interrupt()` again (a second question in the same step, as
 * human-approval asks after an invalid decision) has one — its consumed resume value.
 */
export function pendingNodes(snapshot: Pick<StateSnapshot, "next" | "tasks">): string[] {
  // A task that ran on after its interrupt (a past checkpoint in the history) has a result: it is not waiting.
  const waiting = snapshot.tasks.filter((task) => (task.interrupts?.length ?? 0) > 0 && task.result === undefined && task.error == null).map((task) => task.name);
  return [...new Set([...snapshot.next, ...waiting])];
}

/** The `awaiting_input` stop reason of a paused run: what it waits at. */
export function awaitingInput(pause: PauseState, turn: number): StopReason {
  const what = pause.interrupts.length > 0 ? `${pause.interrupts.length} interrupt${pause.interrupts.length === 1 ? "" : "s"}` : `before ${pause.next.join(", ")}`;
  return { reason: AWAITING_INPUT, by: "kernel", turn, detail: `paused (${what}); resume with \`command: { resume }\`, \`command: { update, goto }\` or \`input: null\`` };
}
