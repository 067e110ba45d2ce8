import type { ChannelDeclaration, ReducerSpec } from "../../contracts/manifest/v1.js";
import type { StackV1 } from "../../contracts/stack/v1.js";
import type { HookName, Plugin } from "../plugin/types.js";

/** A stack as `compose` takes it: stack@1, where entries may also be plugin instances. */
export interface StackInput extends Omit<StackV1, "plugins"> {
  plugins: Array<StackV1["plugins"][number] | Plugin | { plugin: Plugin; config?: Record<string, unknown> }>;
}

export interface ComposeOptions {
  /** Plugins that stack entries may name: built-ins plus `--plugin` modules, in listing order. */
  plugins?: readonly Plugin[] | Readonly<Record<string, Plugin>>;
  /**
   * Option layers applied over the stack file's config, later wins: a scenario's `config`
   * (subagent stacks: then `subagentConfig`, then a lease's allowance); under `keel serve`,
   * a user assistant's `context.plugins`, then the run request's `context.plugins`, then
   * the options the server sets itself (the workspace's root and bash switch).
   * Keys name plugins; a key for a plugin not in the stack is `KEEL_ERR_CONFIG_UNKNOWN_PLUGIN`.
   */
  config?: ReadonlyArray<Readonly<Record<string, Record<string, unknown>>>>;
  /** Kernel version checked against manifests' `kernel` ranges (default: the package version). */
  kernelVersion?: string;
}

export type AccessMode = "read" | "write";

/** One row of the channel access table. */
export interface ChannelAccess {
  plugin: string;
  hook: HookName;
  channel: string;
  mode: AccessMode;
  optional: boolean;
}

export interface OrderingEdge {
  before: string;
  after: string;
  /** Why the edge exists, e.g. "`finish-reason` requiresBefore `loop-detection` (optional)" or `stack order ["a","b"]`. */
  reason: string;
}

/** Kernel channels may also use the LangGraph messages reducer (merge by id, removal). */
export type ChannelReducer = ReducerSpec | "messages";

export interface ResolvedChannel extends Omit<ChannelDeclaration, "reducer"> {
  name: string;
  /** `kernel` or the owning plugin's name. */
  owner: string;
  reducer: ChannelReducer;
  /** Kernel channels plugins may read but never write (`runMeta`, request pseudo-channels they do not wrap). */
  readOnly?: boolean;
  /** Whether writes commute (append-set, sum): such writes never race with each other. */
  commutative: boolean;
}

export interface ResolvedPlugin {
  readonly plugin: Plugin;
  readonly name: string;
  /** Options after defaults and every config layer, validated. */
  readonly config: Readonly<Record<string, unknown>>;
}

export interface Explanation {
  order: string[];
  hooks: Record<HookName, string[]>;
  edges: OrderingEdge[];
  channels: ChannelAccess[];
}

export interface Composition {
  readonly stackName: string;
  /** Every plugin (middleware and service) in composed order. */
  readonly order: readonly string[];
  /** Plugins by name, with their resolved config. */
  readonly plugins: ReadonlyMap<string, ResolvedPlugin>;
  /** Execution order per hook: before* composed order, after* reversed, wrap* outermost first. */
  readonly hooks: Readonly<Record<HookName, readonly string[]>>;
  readonly channels: ReadonlyMap<string, ResolvedChannel>;
  readonly access: readonly ChannelAccess[];
  readonly edges: readonly OrderingEdge[];
  /** The subagent stack as given (not composed here; the delegation plugin composes it). */
  readonly subagentStack?: StackV1["subagentStack"];
  explain(): Explanation;
}
