import { join } from "node:path";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { AIMessage, BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import type { ScenarioV1 } from "../../contracts/scenario/v1.js";
import { KeelError } from "../../kernel/errors.js";
import { keelMeta } from "../../kernel/loop/message-meta.js";
import { importOptional } from "../../kernel/optional-import.js";
import { packageRoot } from "../../kernel/package-root.js";
import { ScriptedChatModel, type ScriptedAgent, type ScriptedChatModelOptions, type ScriptedFault } from "../testing/scripted-model.js";
import { loadScenarioFile } from "../scenario/load-scenario.js";
import { DEFAULT_PROVIDER_IDLE_MS, idleTimeoutFetch } from "../../plugins/error-fallback/idle-timeout-fetch.js";
import type { ModelSpec, ProviderModelSpec } from "./model-spec.js";

/** The chat models of a server: fresh ones per run, so scripted runs start their scripts afresh. */
export interface RunModels {
  /** The lead's model for one run. */
  forLead(runId: string): BaseChatModel;
  /** A child's model: a scripted server answers with that subagent type's script (or the path's). */
  forChild(agentPath: string, subagentType: string): BaseChatModel;
  /** Subagent types a `task` call may name. */
  readonly childTypes: readonly string[];
  /** The scenario behind a scripted model: its workspace files seed new threads, its `bash` entries script bash. */
  readonly scenario?: ScenarioV1;
}

/** The built-in demo: a scenario@1 file shipped with Keel. */
export function demoScenarioPath(): string {
  return join(packageRoot(), "tools", "demo", "demo.scenario.json");
}

/** With a real model every child runs the same model on the subagent stack; the type only names the role. */
const REAL_MODEL_CHILD_TYPES = ["general-purpose"] as const;

export async function loadRunModels(spec: ModelSpec, env: NodeJS.ProcessEnv = process.env): Promise<RunModels> {
  switch (spec.kind) {
    case "demo":
      return scriptedModels(loadScenarioFile(demoScenarioPath()).scenario);
    case "scripted":
      return scriptedModels(loadScenarioFile(spec.file).scenario);
    case "openai":
    case "anthropic": {
      const make = await providerModelFactory(spec, env);
      return { forLead: () => make(), forChild: () => make(), childTypes: REAL_MODEL_CHILD_TYPES };
    }
  }
}

/**
 * A factory of the provider's LangChain client, checked once (keys, idle bound). Every
 * client is built with its own retries off (`maxRetries: 0`, which LangChain passes on
 * to the SDK): error-fallback is the only retry layer, so each retry is a `guard` event
 * and a journal entry, and attempts are counted once. Every request goes through
 * `idleTimeoutFetch`: a provider silent for `KEEL_PROVIDER_IDLE_MS` (default 120 s)
 * fails the attempt as a retryable timeout.
 */
export async function providerModelFactory(spec: ProviderModelSpec, env: NodeJS.ProcessEnv = process.env): Promise<() => BaseChatModel> {
  const fetch = idleTimeoutFetch(providerIdleMs(env));
  const maxTokens = spec.maxTokens === undefined ? {} : { maxTokens: spec.maxTokens };
  if (spec.kind === "openai") {
    const { ChatOpenAI } = await importOptional("@langchain/openai", "--model openai:…", () => import("@langchain/openai"));
    const baseURL = env.OPENAI_BASE_URL;
    if (!env.OPENAI_API_KEY && !baseURL) {
      throw new KeelError("KEEL_ERR_SERVE_CONFIG", "--model openai:… needs OPENAI_API_KEY (and OPENAI_BASE_URL for another OpenAI-compatible server)");
    }
    // Any OpenAI-compatible server: local ones often need no key, but the client wants one.
    const apiKey = env.OPENAI_API_KEY || "not-needed";
    return () => new ChatOpenAI({ model: spec.model, apiKey, maxRetries: 0, ...maxTokens, configuration: { fetch, ...(baseURL ? { baseURL } : {}) } }) as unknown as BaseChatModel;
  }
  const { ChatAnthropic } = await importOptional("@langchain/anthropic", "--model anthropic:…", () => import("@langchain/anthropic"));
  const apiKey = env.ANTHROPIC_API_KEY;
  if (!apiKey) throw new KeelError("KEEL_ERR_SERVE_CONFIG", "--model anthropic:… needs ANTHROPIC_API_KEY (and ANTHROPIC_BASE_URL for another Messages API server)");
  const baseURL = env.ANTHROPIC_BASE_URL;
  return () =>
    new ChatAnthropic({ model: spec.model, apiKey, maxRetries: 0, ...maxTokens, ...(baseURL ? { anthropicApiUrl: baseURL } : {}), clientOptions: { fetch } }) as unknown as BaseChatModel;
}

/** `KEEL_PROVIDER_IDLE_MS`: how long a provider may send nothing before the attempt fails (ms, ≥ 10). */
export function providerIdleMs(env: NodeJS.ProcessEnv): number {
  const raw = env.KEEL_PROVIDER_IDLE_MS;
  if (raw === undefined || raw === "") return DEFAULT_PROVIDER_IDLE_MS;
  const value = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || value < 10) throw new KeelError("KEEL_ERR_SERVE_CONFIG", `KEEL_PROVIDER_IDLE_MS must be an integer number of milliseconds >= 10, got \`${raw}\``);
  return value;
}

function scriptedModels(scenario: ScenarioV1): RunModels {
  const faults = (scenario.faults ?? []) as ScriptedFault[];
  const agents = scenario.agents as Record<string, ScriptedAgent>;
  return {
    scenario,
    childTypes: Object.keys(agents).filter((name) => name !== "lead" && !name.includes("/")),
    forLead: (runId) => new RunScriptedChatModel({ script: agents.lead!, agentPath: "lead", agentType: "lead", faults }, runTag(runId)),
    forChild: (agentPath, subagentType) =>
      new ScriptedChatModel({ script: agents[agentPath] ?? agents[subagentType] ?? { turns: [], then: "stop" }, agentPath, agentType: subagentType, faults }),
  };
}

/**
 * A scripted lead whose tool call ids carry the run: a script answers every run with
 * the same calls, and on one thread the same ids would name earlier runs' calls (the
 * messages reducer merges by id, delegations upsert by id, a child's checkpoints are
 * keyed by its task's id), so a second run would read as the first. Children need no
 * tag: their ids derive from their agent path, which holds the lead's tagged task id.
 */
class RunScriptedChatModel extends ScriptedChatModel {
  constructor(
    options: ScriptedChatModelOptions,
    private readonly tag: string,
  ) {
    super(options);
  }

  override async _generate(messages: BaseMessage[], options: this["ParsedCallOptions"]): Promise<ChatResult> {
    // A run resuming a paused thread (input null, a command) continues the script where the paused run left it.
    if (this.turnsAnswered === 0) this.continueAfter(answersSinceLastInput(messages));
    const result = await super._generate(messages, options);
    for (const generation of result.generations) {
      const message = generation.message as AIMessage;
      if (message.tool_calls?.length) message.tool_calls = message.tool_calls.map((call) => ({ ...call, id: `${call.id}_${this.tag}` }));
    }
    return result;
  }
}

/**
 * Assistant answers after the newest run input: 0 on a fresh run, more on a resume. A run's
 * input messages carry ids `<runId>:input:<n>` (the runtime's); a user message a resume's
 * `command.update` added is not an input, nor are Keel's hidden stop instructions. Without
 * any input-id message (inputs given with their own ids), the newest visible user message counts.
 */
function answersSinceLastInput(messages: readonly BaseMessage[]): number {
  const isInput = (m: BaseMessage) => m.getType() === "human" && /:input:\d+$/.test(m.id ?? "");
  const anyInput = messages.some(isInput);
  let count = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    const type = message.getType();
    if (type === "human" && (anyInput ? isInput(message) : !keelMeta(message).hidden)) return count;
    if (type === "ai") count++;
  }
  return count;
}

/** Eight characters of the run id: unique enough among one thread's runs, short in transcripts. */
function runTag(runId: string): string {
  return runId.replace(/[^A-Za-z0-9]/g, "").slice(0, 8) || "run";
}
