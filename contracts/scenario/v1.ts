import Type, { type Static } from "typebox";
import { defineContract } from "../define.js";
import { StackV1 } from "../stack/v1.js";

/** Options by plugin name; each plugin's own config schema checks the inside. */
export const PluginConfigMap = Type.Record(Type.String(), Type.Record(Type.String(), Type.Unknown()));
export type PluginConfigMap = Static<typeof PluginConfigMap>;

export const ScriptedToolCall = Type.Object(
  { name: Type.String({ minLength: 1 }), id: Type.Optional(Type.String({ minLength: 1 })), args: Type.Record(Type.String(), Type.Unknown()) },
  { additionalProperties: false },
);
export type ScriptedToolCall = Static<typeof ScriptedToolCall>;

/** Mirrors LangChain's `usage_metadata`, hence snake_case. */
export const ScriptedUsage = Type.Object(
  { input_tokens: Type.Integer({ minimum: 0 }), output_tokens: Type.Integer({ minimum: 0 }) },
  { additionalProperties: false },
);
export type ScriptedUsage = Static<typeof ScriptedUsage>;

export const ScriptedTurn = Type.Object(
  {
    content: Type.Optional(Type.String()),
    toolCalls: Type.Optional(Type.Array(ScriptedToolCall)),
    usage: Type.Optional(ScriptedUsage),
    finishReason: Type.Optional(Type.String({ minLength: 1 })),
    provider: Type.Optional(Type.Enum(["openai", "anthropic", "gemini"])),
  },
  { additionalProperties: false },
);
export type ScriptedTurn = Static<typeof ScriptedTurn>;

export const AgentScript = Type.Object(
  { turns: Type.Array(ScriptedTurn), then: Type.Optional(Type.Enum(["stop", "repeat-last", "repeat-all"])) },
  { additionalProperties: false },
);
export type AgentScript = Static<typeof AgentScript>;

/** `lead` is the top agent; every other key is a subagent type. */
export const AgentScripts = Type.Unsafe<{ lead: AgentScript } & Record<string, AgentScript>>(
  Type.Object({ lead: AgentScript }, { additionalProperties: AgentScript }),
);
export type AgentScripts = Static<typeof AgentScripts>;

export const ScriptedBash = Type.Object(
  { match: Type.String({ minLength: 1 }), output: Type.String(), exitCode: Type.Optional(Type.Integer()) },
  { additionalProperties: false },
);
export type ScriptedBash = Static<typeof ScriptedBash>;

export const ScriptedFault = Type.Object(
  {
    agent: Type.String({ minLength: 1 }),
    turn: Type.Integer({ minimum: 1 }),
    times: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.Literal("always")])),
    error: Type.Optional(
      Type.Object(
        {
          status: Type.Optional(Type.Integer()),
          message: Type.String(),
          code: Type.Optional(Type.String()),
          type: Type.Optional(Type.String()),
        },
        { additionalProperties: false },
      ),
    ),
    kind: Type.Optional(Type.Enum(["error", "hang"])),
  },
  { additionalProperties: false },
);
export type ScriptedFault = Static<typeof ScriptedFault>;

/**
 * A recorded tool result (`keel replay`): the call `toolCallId` of agent `agent` gets this
 * output instead of running its tool (file-writing tools still run, so the workspace follows).
 */
export const ToolFixture = Type.Object(
  {
    agent: Type.String({ minLength: 1 }),
    toolCallId: Type.String({ minLength: 1 }),
    tool: Type.String({ minLength: 1 }),
    content: Type.String(),
    status: Type.Optional(Type.Enum(["success", "error"])),
  },
  { additionalProperties: false },
);
export type ToolFixture = Static<typeof ToolFixture>;

export const ScenarioV1 = Type.Object(
  {
    contract: Type.Literal("scenario"),
    version: Type.Literal(1),
    name: Type.String({ minLength: 1 }),
    stack: Type.Union([Type.String({ minLength: 1 }), StackV1]),
    config: Type.Optional(PluginConfigMap),
    subagentConfig: Type.Optional(PluginConfigMap),
    maxTurns: Type.Optional(Type.Integer({ minimum: 1 })),
    input: Type.String(),
    workspace: Type.Optional(Type.Object({ files: Type.Record(Type.String(), Type.String()) }, { additionalProperties: false })),
    agents: AgentScripts,
    /** Scripts per agent path (`lead/<taskToolCallId>`): a child with its own entry uses it instead of its type's script in `agents`. */
    agentPaths: Type.Optional(Type.Record(Type.String({ minLength: 1 }), AgentScript)),
    /** Recorded tool results, used instead of running the tools they name. */
    toolResults: Type.Optional(Type.Array(ToolFixture)),
    bash: Type.Optional(Type.Array(ScriptedBash)),
    faults: Type.Optional(Type.Array(ScriptedFault)),
  },
  { additionalProperties: false },
);
export type ScenarioV1 = Static<typeof ScenarioV1>;

export default defineContract("scenario", 1, "Keel scenario: a deterministic scripted run", ScenarioV1);
