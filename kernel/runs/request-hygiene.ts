/**
 * Request hygiene (kernel/runs/README.md): what a caller sends is data, never authority. The
 * cleaned request is what gets persisted with the run and what the executor sees.
 *
 * Exactly what happens, in this order:
 * 1. The request is copied through JSON (what the store persists anyway): functions,
 *    `undefined` and class prototypes are gone; a value that is not JSON-serializable
 *    (a cycle, a BigInt) is refused with KEEL_ERR_CONFIG_INVALID.
 * 2. Every object key starting with `__` is removed, at any depth, in `input`, `config`,
 *    `metadata` and `context` (`__proto__`, `__keel`, `__pregel_*`: internal keys a caller
 *    could use to reach runtime internals).
 * 3. Evidence is stripped: the runtime-owned keys (`limits.runtimeOwnedKeys`: the channels
 *    plugins declare `runtimeOwned` in their manifests, their `runtimeOwnedFields`, and the
 *    snake_case spelling of each — `runtimeOwnedKeys(compositions)`) at any depth of
 *    `metadata`, `context` and `config.metadata`, and at the top level of `input`; and
 *    Keel's message metadata (`additional_kwargs.keel`, also inside a serialized message's
 *    `kwargs`) of every message in `input.messages` — only the runtime stamps receipts and
 *    verdicts, a caller cannot forge them.
 * 4. The run's address comes from the URL, not the body: `config.configurable.thread_id`,
 *    `checkpoint_id`, `checkpoint_ns`, `checkpoint_map` and `run_id` are removed.
 * 5. Limits are clamped to the server maximum `maxTurns`: `request.maxTurns` to
 *    [1, maxTurns] (a non-number is dropped), and `config.recursion_limit` /
 *    `config.recursionLimit` to at most `2 × maxTurns + 10` (the runtime's own setting).
 * 6. `checkpointId` (a run from an earlier checkpoint, checkpoint-fork.ts) is kept when it
 *    is a non-empty string; it is the one way to name a fork point.
 */
import { isRecord } from "../../contracts/plain-object.js";
import { KeelError } from "../errors.js";
import type { RunRequest } from "./types.js";

export interface HygieneLimits {
  /** The server maximum for a run's turn budget. */
  maxTurns: number;
  /** Models a request may name; absent: any. */
  allowedModels?: readonly string[];
  /** Keys a caller may not set (`runtimeOwnedKeys` of the served compositions); absent: none. */
  runtimeOwnedKeys?: readonly string[];
}

const ADDRESS_KEYS = ["thread_id", "checkpoint_id", "checkpoint_ns", "checkpoint_map", "run_id"];

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/** The request is a JSON copy, so a record in it is a JSON object. */
const isObject = (value: unknown): value is JsonObject => isRecord(value);

/**
 * @example
 * sanitizeRunRequest({ assistantId: "lead", input: "hi", metadata: { __x: 1, receipts: [] }, maxTurns: 10_000 }, { maxTurns: 500, runtimeOwnedKeys: ["receipts"] })
 * // → { assistantId: "lead", input: "hi", metadata: {}, maxTurns: 500 }
 */
export function sanitizeRunRequest(request: RunRequest, limits: HygieneLimits): RunRequest {
  const copy = jsonCopy(request);
  if (typeof copy.assistantId !== "string" || copy.assistantId.length === 0) {
    throw new KeelError("KEEL_ERR_CONFIG_INVALID", "a run request needs an `assistantId` (the stack name)", { pointer: "/assistantId" });
  }
  const owned = new Set(limits.runtimeOwnedKeys ?? []);
  const out: RunRequest = { assistantId: copy.assistantId, input: cleanInput(withoutDunderKeys(copy.input as Json | undefined), owned) };
  if (isObject(copy.config)) out.config = cleanConfig(withoutDunderKeys(copy.config) as JsonObject, limits, owned);
  if (isObject(copy.context)) out.context = withoutKeys(withoutDunderKeys(copy.context), owned) as JsonObject;
  if (isObject(copy.metadata)) out.metadata = withoutKeys(withoutDunderKeys(copy.metadata), owned) as JsonObject;
  if (Array.isArray(copy.streamMode)) out.streamMode = copy.streamMode.filter((m): m is string => typeof m === "string");
  if (copy.streamSubgraphs === true) out.streamSubgraphs = true;
  if (copy.onDisconnect === "cancel" || copy.onDisconnect === "continue") out.onDisconnect = copy.onDisconnect;
  const maxTurns = clampTurns(copy.maxTurns, limits.maxTurns);
  if (maxTurns !== undefined) out.maxTurns = maxTurns;
  // The fork point is an explicit field, never read from `config.configurable` (step 4).
  if (typeof copy.checkpointId === "string" && copy.checkpointId.length > 0) out.checkpointId = copy.checkpointId;
  if (isObject(copy.command)) out.command = cleanCommand(copy.command, owned);
  for (const key of ["interruptBefore", "interruptAfter"] as const) {
    const nodes = copy[key];
    if (nodes === "*") out[key] = "*";
    else if (Array.isArray(nodes)) out[key] = nodes.filter((n): n is string => typeof n === "string");
  }
  checkRequestedModel(out, limits.allowedModels);
  return out;
}

/** The kernel's evidence channels: never written by a caller, not even through a command's update. */
const KERNEL_OWNED_CHANNELS = ["stopReasons", "usage", "runMeta"];

/** A command's `update` writes channels: runtime-owned ones, `__` keys and Keel's message metadata are dropped, as from an input. */
function cleanCommand(command: JsonObject, owned: ReadonlySet<string>): NonNullable<RunRequest["command"]> {
  const out: NonNullable<RunRequest["command"]> = {};
  if ("resume" in command) out.resume = command.resume;
  if ("goto" in command && command.goto !== null) out.goto = command.goto;
  if (isObject(command.update)) {
    const update = cleanInput(withoutDunderKeys(command.update), new Set([...owned, ...KERNEL_OWNED_CHANNELS])) as JsonObject;
    out.update = update;
  }
  return out;
}

/** A requested model must be on the server's allowlist (`config.configurable.model` or `context.model`). */
function checkRequestedModel(request: RunRequest, allowed: readonly string[] | undefined): void {
  if (!allowed) return;
  const candidates: Array<[string, unknown]> = [
    ["/config/configurable/model", (request.config?.configurable as Record<string, unknown> | undefined)?.model],
    ["/context/model", request.context?.model],
  ];
  for (const [pointer, model] of candidates) {
    if (model === undefined) continue;
    if (typeof model !== "string" || !allowed.includes(model)) {
      throw new KeelError("KEEL_ERR_RUN_MODEL_NOT_ALLOWED", `model \`${String(model)}\` is not served here; allowed: ${allowed.join(", ")}`, { pointer });
    }
  }
}

function jsonCopy(request: RunRequest): Partial<Record<keyof RunRequest, unknown>> {
  try {
    return JSON.parse(JSON.stringify(request)) as Partial<Record<keyof RunRequest, unknown>>;
  } catch (error) {
    throw new KeelError("KEEL_ERR_CONFIG_INVALID", `the run request is not JSON data: ${(error as Error).message}`, { cause: error });
  }
}

function withoutDunderKeys(value: Json | undefined): Json | undefined {
  if (Array.isArray(value)) return value.map((v) => withoutDunderKeys(v) as Json);
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const [key, v] of Object.entries(value)) {
    if (!key.startsWith("__")) out[key] = withoutDunderKeys(v) as Json;
  }
  return out;
}

/** `value` without the runtime-owned keys, at any depth. */
function withoutKeys(value: Json | undefined, owned: ReadonlySet<string>): Json | undefined {
  if (Array.isArray(value)) return value.map((v) => withoutKeys(v, owned) as Json);
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const [key, v] of Object.entries(value)) {
    if (!owned.has(key)) out[key] = withoutKeys(v, owned) as Json;
  }
  return out;
}

function cleanInput(input: Json | undefined, owned: ReadonlySet<string>): Json | undefined {
  if (!isObject(input)) return input;
  const out: JsonObject = {};
  for (const [key, v] of Object.entries(input)) {
    if (owned.has(key)) continue;
    out[key] = key === "messages" && Array.isArray(v) ? v.map(withoutKeelMessageMeta) : v;
  }
  return out;
}

/** A message as LangGraph sends it (`additional_kwargs`) or as LangChain serializes it (`kwargs.additional_kwargs`). */
function withoutKeelMessageMeta(message: Json): Json {
  if (!isObject(message)) return message;
  const out: JsonObject = { ...message };
  if (isObject(out.additional_kwargs)) {
    const { keel: _keel, ...rest } = out.additional_kwargs;
    out.additional_kwargs = rest;
  }
  if (isObject(out.kwargs)) out.kwargs = withoutKeelMessageMeta(out.kwargs);
  return out;
}

function cleanConfig(config: JsonObject, limits: HygieneLimits, owned: ReadonlySet<string>): JsonObject {
  const out: JsonObject = { ...config };
  if (isObject(out.configurable)) {
    const configurable = { ...out.configurable };
    for (const key of ADDRESS_KEYS) delete configurable[key];
    out.configurable = configurable;
  }
  if (isObject(out.metadata)) out.metadata = withoutKeys(out.metadata, owned) as JsonObject;
  const recursionCeiling = 2 * limits.maxTurns + 10;
  for (const key of ["recursion_limit", "recursionLimit"]) {
    const value = out[key];
    if (value === undefined) continue;
    if (typeof value === "number" && Number.isFinite(value)) out[key] = Math.max(1, Math.min(Math.floor(value), recursionCeiling));
    else delete out[key];
  }
  return out;
}

function clampTurns(value: unknown, max: number): number | undefined {
  if (typeof value !== "number" || !Number.isFinite(value)) return undefined;
  return Math.max(1, Math.min(Math.floor(value), max));
}
