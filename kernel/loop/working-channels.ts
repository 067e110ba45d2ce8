import { BaseMessage, RemoveMessage } from "@langchain/core/messages";
import { Overwrite } from "@langchain/langgraph";
import { validate } from "../../contracts/registry.js";
import { appendFresh, messageIndex } from "../channels/message-index.js";
import { reduceChannel } from "../channels/reducers.js";
import type { Composition } from "../compose/types.js";
import { KeelError } from "../errors.js";
import type { ChannelUpdate } from "../plugin/types.js";
import { assertChannelSchema } from "./channel-schema.js";
import { freezeWritten, guardValue, unguard, type WriteGuard } from "./enforcement.js";

/**
 * A node's working copy of the channels. Hook updates are applied here, through the
 * channel reducers and in dispatch order, so each hook sees what earlier hooks wrote;
 * the node then hands LangGraph the final values (as `Overwrite`s, since the reducers
 * already ran).
 */
export class WorkingChannels {
  private readonly values: Record<string, unknown>;
  private readonly changed = new Set<string>();

  /**
   * @param enforce run-time enforcement (default on): each written update is schema-checked and
   *   deep-frozen once, and hooks see channel values behind write guards (kernel README).
   */
  constructor(
    private readonly composition: Composition,
    private readonly initial: Readonly<Record<string, unknown>>,
    readonly enforce = true,
  ) {
    this.values = { ...initial };
  }

  get<T = unknown>(channel: string): T {
    return this.values[channel] as T;
  }

  /** Replace a channel's value outright (kernel only). */
  set(channel: string, value: unknown): void {
    if (channel === "messages") this.appended = null;
    if (this.enforce) freezeItems(value);
    this.values[channel] = value;
    this.changed.add(channel);
  }

  apply(update: ChannelUpdate, source = "kernel"): void {
    for (const [name, given] of Object.entries(update)) {
      if (given === undefined) continue;
      const value = unguard(given);
      const channel = this.composition.channels.get(name);
      if (!channel) throw new KeelError("KEEL_ERR_HOOK_UNDECLARED_MUTATION", `${source} wrote \`${name}\`, which is not a channel of this stack`);
      if (channel.contract) assertContract(channel.contract, name, value, source);
      if (this.enforce) assertChannelSchema(channel, value, source);
      this.values[name] = channel.reducer === "messages" ? this.appendMessages(value) : reduceChannel(channel.reducer, this.values[name], value);
      // Frozen after the reducer ran (the messages reducer assigns missing ids): later in-place edits throw.
      // The list the reducer built is not frozen: V8 copies and filters frozen arrays on slow paths
      // (`slice`, `concat` ≈ 10–40× at 4,000 items), which every later step and plugin would pay; hooks get it behind a guard.
      if (this.enforce) freezeWritten(value);
      this.changed.add(name);
    }
  }

  /**
   * The messages this node appended, while every change of `messages` was a plain append
   * (null once anything else changed it): then the node's update is just these, and the
   * reducer after the node finds the history this working copy already built.
   */
  private appended: BaseMessage[] | null = [];

  /** The messages reducer; a plain append takes its fast path (the history's index, no rebuild). */
  private appendMessages(update: unknown): BaseMessage[] {
    const current = (this.values.messages as BaseMessage[] | undefined) ?? [];
    const next = appendFresh(current, update);
    if (next && this.appended !== null) this.appended.push(...next.slice(current.length));
    else this.appended = null;
    return next ?? (reduceChannel("messages", current, update) as BaseMessage[]);
  }

  /** Whether a tool result for `toolCallId` is in `messages` (the history's index: no scan). */
  hasToolResult(toolCallId: string): boolean {
    return messageIndex(this.get<BaseMessage[]>("messages") ?? EMPTY).toolResults.has(toolCallId);
  }

  /** The channels a hook may see (behind the hook's write guard of each channel, `guardOf`, when enforcing). */
  view(channels: ReadonlySet<string>, guardOf?: (channel: string) => WriteGuard): Readonly<Record<string, unknown>> {
    const out: Record<string, unknown> = {};
    for (const name of channels) {
      if (!(name in this.values)) continue;
      out[name] = this.enforce && guardOf ? guardValue(this.values[name], guardOf(name)) : this.values[name];
    }
    return Object.freeze(out);
  }

  /** Remember the channels as they are now; the returned function brings them back (undoing every update since). */
  mark(): () => void {
    const values = { ...this.values };
    const changed = new Set(this.changed);
    const appended = this.appended === null ? null : [...this.appended];
    return () => {
      for (const key of Object.keys(this.values)) delete this.values[key];
      Object.assign(this.values, values);
      this.changed.clear();
      for (const name of changed) this.changed.add(name);
      this.appended = appended;
    };
  }

  /** The node's return value: every changed channel, already reduced. */
  changes(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const name of this.changed) {
      if (this.composition.channels.get(name)?.reducer !== "messages") {
        out[name] = new Overwrite(this.values[name]);
        continue;
      }
      // Only the kernel's `messages` channel has the append bookkeeping; another messages-reduced channel takes the delta.
      const appended = name === "messages" ? this.appended : null;
      out[name] = appended ?? messagesDelta(this.initial[name] as BaseMessage[] | undefined, this.values[name] as BaseMessage[]) ?? new Overwrite(this.values[name]);
    }
    return out;
  }
}

const EMPTY: readonly BaseMessage[] = Object.freeze([]);

/** Freeze what a channel holds, item by item for lists (the list itself is rebuilt by reducers). */
export function freezeItems(value: unknown): void {
  if (Array.isArray(value)) for (const item of value) freezeWritten(item);
  else freezeWritten(value);
}

/**
 * The change from `before` to `after` as a messages-reducer update (replaced and new
 * messages, removals), so a step checkpoints what it added rather than the whole history.
 * Null when the change reorders messages, which only a full overwrite can express.
 */
export function messagesDelta(before: readonly BaseMessage[] | undefined, after: readonly BaseMessage[]): Array<BaseMessage> | null {
  const previous = new Map<string, { index: number; message: BaseMessage }>();
  (before ?? []).forEach((message, index) => {
    if (message.id) previous.set(message.id, { index, message });
  });
  if (previous.size !== (before ?? []).length) return null;
  const delta: BaseMessage[] = [];
  const kept = new Set<string>();
  let lastIndex = -1;
  let appending = false;
  for (const message of after) {
    const known = message.id ? previous.get(message.id) : undefined;
    if (!known) {
      if (!message.id) return null;
      appending = true;
      delta.push(message);
      continue;
    }
    if (appending || known.index < lastIndex) return null;
    lastIndex = known.index;
    kept.add(message.id!);
    if (known.message !== message) delta.push(message);
  }
  const removed = [...previous.keys()].filter((id) => !kept.has(id)).map((id) => new RemoveMessage({ id }));
  return [...removed, ...delta];
}

/** Writes to a contract-typed channel fail closed: each written item must validate. */
function assertContract(contract: string, channel: string, value: unknown, source: string): void {
  const items = Array.isArray(value) ? value : [value];
  for (const [i, item] of items.entries()) {
    const result = validate(contract, item);
    if (!result.valid) {
      const issue = result.errors[0]!;
      throw new KeelError(
        "KEEL_ERR_CONTRACT_VIOLATION",
        `${source} wrote an invalid ${contract} payload to \`${channel}\` (item ${i}) at \`${issue.pointer || "/"}\`: ${issue.message}`,
        { pointer: issue.pointer },
      );
    }
  }
}
