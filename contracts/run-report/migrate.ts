import { contractError } from "../errors.js";
import type { ModelRequest, ReportMessage, RunReportV1 } from "./v1.js";
import type { CopiedMessages, ModelRequestDelta, ModelRequestV2, RunReportV2 } from "./v2.js";

/**
 * The identity of a report message for delta matching: every field, in a fixed order, so
 * two messages with the same content match whatever order their keys were written in.
 */
function messageKey(message: ReportMessage, cache: WeakMap<object, string>): string {
  let key = cache.get(message);
  if (key === undefined) {
    key = JSON.stringify([message.role, message.content, message.hidden, message.toolCalls ?? null, message.toolCallId ?? null, message.status ?? null]);
    cache.set(message, key);
  }
  return key;
}

function sameTools(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((name, i) => name === b[i]);
}

/**
 * `messages` as parts against `base`: runs of the base's messages become `{ copy: [start, count] }`
 * (a run continues where the previous one ended when it can, else starts at the first
 * matching message), everything else is kept as is.
 */
export function deltaParts(messages: readonly ReportMessage[], base: readonly ReportMessage[], cache = new WeakMap<object, string>()): Array<ReportMessage | CopiedMessages> {
  const baseKeys = base.map((m) => messageKey(m, cache));
  const firstAt = new Map<string, number>();
  baseKeys.forEach((key, i) => {
    if (!firstAt.has(key)) firstAt.set(key, i);
  });
  const parts: Array<ReportMessage | CopiedMessages> = [];
  let next = 0;
  let i = 0;
  while (i < messages.length) {
    const key = messageKey(messages[i]!, cache);
    const start = baseKeys[next] === key ? next : firstAt.get(key);
    if (start === undefined) {
      parts.push(messages[i]!);
      i += 1;
      continue;
    }
    let count = 1;
    while (i + count < messages.length && start + count < base.length && baseKeys[start + count] === messageKey(messages[i + count]!, cache)) count += 1;
    parts.push({ copy: [start, count] });
    next = start + count;
    i += count;
  }
  return parts;
}

/**
 * Encode run-report@1's model requests as run-report@2's: each request against the latest
 * earlier request of the same agent (none: kept whole), `tools` left out when unchanged.
 * Deterministic, so encoding the expansion of an encoding gives it back.
 */
export function encodeModelRequests(requests: readonly ModelRequest[]): ModelRequestV2[] {
  const cache = new WeakMap<object, string>();
  const latest = new Map<string, number>();
  return requests.map((request, index): ModelRequestV2 => {
    const baseIndex = latest.get(request.agent);
    latest.set(request.agent, index);
    if (baseIndex === undefined) return { agent: request.agent, turn: request.turn, messages: request.messages, tools: request.tools };
    const base = requests[baseIndex]!;
    const delta: ModelRequestDelta = { agent: request.agent, turn: request.turn, base: baseIndex, parts: deltaParts(request.messages, base.messages, cache) };
    if (!sameTools(request.tools, base.tools)) delta.tools = request.tools;
    return delta;
  });
}

function isDelta(request: ModelRequestV2): request is ModelRequestDelta {
  return "base" in request;
}

function isCopy(part: ReportMessage | CopiedMessages): part is CopiedMessages {
  return "copy" in part;
}

/**
 * Expand run-report@2's model requests to run-report@1's (every request's whole message
 * list). A `base` that is not an earlier request, or a copy outside its base, is
 * `KEEL_ERR_CONTRACT_VIOLATION` with the JSON pointer of the offending value.
 */
export function expandModelRequests(requests: readonly ModelRequestV2[]): ModelRequest[] {
  const out: ModelRequest[] = [];
  requests.forEach((request, index) => {
    if (!isDelta(request)) {
      out.push({ agent: request.agent, turn: request.turn, messages: [...request.messages], tools: [...request.tools] });
      return;
    }
    if (request.base >= index) {
      throw contractError("KEEL_ERR_CONTRACT_VIOLATION", `model request ${index}: \`base\` ${request.base} is not an earlier request`, { pointer: `/modelRequests/${index}/base` });
    }
    const base = out[request.base]!;
    const messages: ReportMessage[] = [];
    request.parts.forEach((part, p) => {
      if (!isCopy(part)) {
        messages.push(part);
        return;
      }
      const [start, count] = part.copy;
      if (start + count > base.messages.length) {
        throw contractError(
          "KEEL_ERR_CONTRACT_VIOLATION",
          `model request ${index}: copy [${start}, ${count}] reaches past the ${base.messages.length} messages of request ${request.base}`,
          { pointer: `/modelRequests/${index}/parts/${p}/copy` },
        );
      }
      for (let k = start; k < start + count; k += 1) messages.push(base.messages[k]!);
    });
    out.push({ agent: request.agent, turn: request.turn, messages, tools: [...(request.tools ?? base.tools)] });
  });
  return out;
}

/**
 * Read run-report@1 as run-report@2: the model requests become deltas
 * (`encodeModelRequests`); every other field is kept as is.
 */
export function upgrade(v1: RunReportV1): RunReportV2 {
  return { ...v1, version: 2, modelRequests: encodeModelRequests(v1.modelRequests) };
}

/**
 * The run-report@1 view of run-report@2: every model request expanded to its whole
 * message list. Nothing is lost: @2 carries exactly what @1 does, only stored as deltas.
 */
export function project(v2: RunReportV2): RunReportV1 {
  return { ...v2, version: 1, modelRequests: expandModelRequests(v2.modelRequests) };
}
