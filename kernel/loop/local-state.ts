import { Overwrite } from "@langchain/langgraph";
import { validate } from "../../contracts/registry.js";
import { reduceChannel } from "../channels/reducers.js";
import type { Composition } from "../compose/types.js";
import { KeelError } from "../errors.js";
import type { ChannelUpdate } from "../plugin/types.js";

/**
 * A node's working copy of the channels. Hook updates are applied here, through the
 * channel reducers and in dispatch order, so each hook sees what earlier hooks wrote;
 * the node then hands LangGraph the final values (as `Overwrite`s, since the reducers
 * already ran).
 */
export class LocalState {
  private readonly values: Record<string, unknown>;
  private readonly changed = new Set<string>();

  constructor(
    private readonly composition: Composition,
    initial: Readonly<Record<string, unknown>>,
  ) {
    this.values = { ...initial };
  }

  get<T = unknown>(channel: string): T {
    return this.values[channel] as T;
  }

  /** Replace a channel's value outright (kernel only). */
  set(channel: string, value: unknown): void {
    this.values[channel] = value;
    this.changed.add(channel);
  }

  apply(update: ChannelUpdate, source = "kernel"): void {
    for (const [name, value] of Object.entries(update)) {
      if (value === undefined) continue;
      const channel = this.composition.channels.get(name);
      if (!channel) throw new KeelError("KEEL_ERR_HOOK_UNDECLARED_MUTATION", `${source} wrote \`${name}\`, which is not a channel of this stack`);
      if (channel.contract) assertContract(channel.contract, name, value, source);
      this.values[name] = reduceChannel(channel.reducer, this.values[name], value);
      this.changed.add(name);
    }
  }

  /** The channels a hook may see. */
  view(channels: ReadonlySet<string>): Readonly<Record<string, unknown>> {
    const out: Record<string, unknown> = {};
    for (const name of channels) if (name in this.values) out[name] = this.values[name];
    return Object.freeze(out);
  }

  /** The node's return value: every changed channel, already reduced. */
  changes(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const name of this.changed) out[name] = new Overwrite(this.values[name]);
    return out;
  }
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
