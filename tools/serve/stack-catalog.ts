import { isRecord } from "../../contracts/plain-object.js";
import type { Composition } from "../../kernel/compose/types.js";
import { PSEUDO_CHANNELS } from "../../kernel/channels/kernel-channels.js";
import { CompositionError, KeelError } from "../../kernel/errors.js";
import type { DrawnGraph } from "../../kernel/loop/runtime.js";
import type { StackCatalog, StackSchemas } from "../../plugins/gateway/stack-catalog.js";

type Json = Record<string, unknown>;
export type ConfigMap = Record<string, Json>;

/** One served stack as the catalog needs it (serve-executor.ts builds these). */
export interface CatalogStack {
  description?: string;
  /** The lead as served (stack file, then the server's layers). */
  lead: Composition;
  subagent: Composition;
  /** Whether the lead delegates to the subagent stack (it has the `subagents` plugin). */
  delegates: boolean;
  /** The lead with one more option layer between the stack file's and the server's; throws CompositionError. */
  composeLead(plugins: ConfigMap): Composition;
  /** The subagent stack with the options of those plugins it also has (same layer); throws CompositionError. */
  composeSubagent(plugins: ConfigMap): Composition;
  drawLead(): Promise<DrawnGraph>;
  drawSubagent(): Promise<DrawnGraph>;
}

export interface StackCatalogOptions {
  /** Options the server sets itself, by plugin (the workspace's root, bash switch, …): an assistant or a request may not set them. */
  serverOptions: Readonly<Record<string, readonly string[]>>;
  /** Models a request may name (absent: any). */
  allowedModels?: readonly string[];
  /** The server's turn cap and the default turn budget. */
  maxTurns: number;
  defaultMaxTurns: number;
}

/** A message as a run's input takes it (kernel/runs/runtime-input.ts). */
const MESSAGE_SCHEMA = {
  type: "object",
  properties: { role: { type: "string", description: "user, assistant, system, tool (or LangChain's type: human, ai, …)" }, content: {}, id: { type: "string" }, name: { type: "string" } },
};
const INPUT_SCHEMA = {
  title: "input",
  description: "One user message as a string, or LangGraph's `{ messages: [...] }`.",
  anyOf: [{ type: "string", minLength: 1 }, { type: "object", required: ["messages"], properties: { messages: { type: "array", minItems: 1, items: MESSAGE_SCHEMA } } }],
};

/**
 * The assistants API's view of the served stacks: option checks (by composing the stack
 * with the options, exactly as a run will), the loop's graph, and the schemas.
 */
export function createStackCatalog(stacks: ReadonlyMap<string, CatalogStack>, options: StackCatalogOptions): StackCatalog {
  const stackOf = (graphId: string): CatalogStack => {
    const stack = stacks.get(graphId);
    if (!stack) throw new KeelError("KEEL_ERR_STACK_NOT_FOUND", `\`${graphId}\` is not a served stack (${[...stacks.keys()].join(", ")})`);
    return stack;
  };

  /** The composed lead with `context.plugins`; a problem is a KeelError pointing into the context. */
  const composeWith = (graphId: string, context: Json): Composition => {
    const stack = stackOf(graphId);
    const plugins = context.plugins ?? {};
    if (!isObject(plugins)) throw new KeelError("KEEL_ERR_CONFIG_INVALID", "must be an object of plugin names to options", { pointer: "/plugins" });
    for (const [plugin, given] of Object.entries(plugins)) {
      if (!isObject(given)) throw new KeelError("KEEL_ERR_CONFIG_INVALID", `the options of \`${plugin}\` must be an object`, { pointer: `/plugins/${escape(plugin)}` });
      for (const key of options.serverOptions[plugin] ?? []) {
        if (key in given) throw new KeelError("KEEL_ERR_CONFIG_INVALID", `\`${plugin}.${key}\` is set by the server and cannot be changed by an assistant or a run`, { pointer: `/plugins/${escape(plugin)}/${escape(key)}` });
      }
    }
    if (Object.keys(plugins).length === 0) return stack.lead;
    try {
      const lead = stack.composeLead(plugins as ConfigMap);
      // The same options reach the children's plugins of those names: they must fit there too.
      if (stack.delegates) stack.composeSubagent(plugins as ConfigMap);
      return lead;
    } catch (error) {
      if (!(error instanceof CompositionError)) throw error;
      const [problem] = error.problems;
      throw new KeelError("KEEL_ERR_CONFIG_INVALID", problem?.message ?? error.message, { pointer: `/plugins${problem?.pointer ?? ""}` });
    }
  };

  const schemasOf = (composition: Composition): StackSchemas => {
    const config = configSchema(composition, options);
    const state = stateSchema(composition);
    return { input_schema: INPUT_SCHEMA, output_schema: state, state_schema: state, config_schema: config, context_schema: config };
  };

  return {
    checkOptions(graphId, context) {
      composeWith(graphId, context);
      const model = context.model;
      if (model !== undefined && options.allowedModels && (typeof model !== "string" || !options.allowedModels.includes(model))) {
        throw new KeelError("KEEL_ERR_RUN_MODEL_NOT_ALLOWED", `model \`${String(model)}\` is not served here; allowed: ${options.allowedModels.join(", ")}`, { pointer: "/model" });
      }
    },
    async graph(graphId, { xray }) {
      const stack = stackOf(graphId);
      const lead = await stack.drawLead();
      if (!xray || !stack.delegates) return lead;
      return withSubagent(lead, await stack.drawSubagent());
    },
    schemas(graphId, context = {}) {
      return schemasOf(composeWith(graphId, context));
    },
    subgraphs(graphId): Record<string, StackSchemas & { graph_id: string }> {
      const stack = stackOf(graphId);
      return stack.delegates ? { subagent: { graph_id: stack.subagent.stackName, ...schemasOf(stack.subagent) } } : {};
    },
    description: (graphId) => stacks.get(graphId)?.description,
  };
}

/**
 * LangGraph's xray shows a subgraph's nodes as `<parent>:<node>`. A Keel lead reaches its
 * subagents through the `task` tool, i.e. from its `tools` node: the subagent's loop is
 * drawn as `subagent:*`, entered from and returning to `tools`.
 */
function withSubagent(lead: DrawnGraph, subagent: DrawnGraph): DrawnGraph {
  const id = (node: string) => `subagent:${node}`;
  return {
    nodes: [...lead.nodes, ...subagent.nodes.map((node) => ({ ...node, id: id(node.id) }))],
    edges: [
      ...lead.edges,
      { source: "tools", target: id("__start__"), conditional: true },
      ...subagent.edges.map((edge) => ({ ...edge, source: id(edge.source), target: id(edge.target) })),
      { source: id("__end__"), target: "tools", conditional: false },
    ],
  };
}

/** The channels a thread's state has, each with its schema and description. */
function stateSchema(composition: Composition): Json {
  const properties: Json = {};
  for (const [name, channel] of composition.channels) {
    if (PSEUDO_CHANNELS.has(name)) continue;
    properties[name] = { ...channel.schema, ...(channel.description ? { description: channel.description } : {}) };
  }
  return { title: `${composition.stackName} state`, type: "object", properties };
}

/**
 * The options of the composed stack: each plugin's config schema with the resolved values
 * (its defaults, the stack file's, the assistant's) as `default`s, the options the server
 * sets left out; `model` and `maxTurns`.
 */
function configSchema(composition: Composition, options: StackCatalogOptions): Json {
  const plugins: Json = {};
  for (const name of composition.order) {
    const resolved = composition.plugins.get(name);
    if (!resolved) continue;
    const hidden = new Set(options.serverOptions[name] ?? []);
    const schema = (resolved.plugin.manifest.config ?? { type: "object", properties: {}, additionalProperties: false }) as Json;
    const properties: Json = {};
    for (const [key, sub] of Object.entries(isObject(schema.properties) ? schema.properties : {})) {
      if (hidden.has(key)) continue;
      properties[key] = key in resolved.config ? { ...(sub as Json), default: resolved.config[key] } : sub;
    }
    const defaults = Object.fromEntries(Object.entries(resolved.config).filter(([key]) => !hidden.has(key)));
    plugins[name] = { ...schema, properties, default: defaults, ...(resolved.plugin.manifest.description ? { description: resolved.plugin.manifest.description } : {}) };
  }
  return {
    title: `${composition.stackName} options`,
    type: "object",
    properties: {
      plugins: { type: "object", additionalProperties: false, properties: plugins },
      model: { type: "string", ...(options.allowedModels ? { enum: [...options.allowedModels] } : {}) },
      maxTurns: { type: "integer", minimum: 1, maximum: options.maxTurns, default: options.defaultMaxTurns },
    },
  };
}

const isObject = isRecord;
const escape = (segment: string) => segment.replace(/~/g, "~0").replace(/\//g, "~1");
