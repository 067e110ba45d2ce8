/**
 * The loop's side of a RunObserver: calls that never throw into the run, several observers
 * as one, the observed tool call a nested run starts inside (AsyncLocalStorage), and what
 * the kernel can tell of a chat model without importing its provider.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { AIMessage } from "@langchain/core/messages";
import type { ModelCallEnd, ObservedModel, RunObservation, RunObserver, RunStart, StepObservation, ToolCallObservation } from "./run-observer.js";

const noop = () => undefined;
const NOOP_STEP: StepObservation<never> = Object.freeze({ end: noop, fail: noop });
/** The observation of a run nobody observes: every call does nothing. */
export const UNOBSERVED_RUN: RunObservation = Object.freeze({ end: noop, fail: noop, modelCall: () => NOOP_STEP, toolCall: () => NOOP_STEP });

interface Ambient {
  observer: RunObserver;
  tool: ToolCallObservation;
}

/** The observed tool call the current code runs inside (its child runs hang under it). */
const ambient = new AsyncLocalStorage<Ambient>();

/** Run a tool inside its observation: a run started by the tool is that call's child. */
export function insideToolCall<T>(observer: RunObserver | undefined, tool: ToolCallObservation, fn: () => Promise<T>): Promise<T> {
  if (!observer) return fn();
  const run = () => ambient.run({ observer, tool }, fn);
  return tool.within ? tool.within(run) : run();
}

/**
 * The observation of a run: `own` (the runtime's observer) or the observer of the tool call
 * this run was started inside, with that call as parent. Never throws.
 */
export function observeRun(own: RunObserver | undefined, start: Omit<RunStart, "parent">): { observer: RunObserver | undefined; observation: RunObservation } {
  const outer = ambient.getStore();
  const observer = own ?? outer?.observer;
  if (!observer) return { observer: undefined, observation: UNOBSERVED_RUN };
  const parent = outer && outer.observer === observer ? { parent: (unguarded.get(outer.tool) as ToolCallObservation | undefined) ?? outer.tool } : {};
  try {
    return { observer, observation: guardRun(observer.runStarted({ ...start, ...parent })) };
  } catch {
    return { observer, observation: UNOBSERVED_RUN };
  }
}

/** A guarded step → the observer's own object (a child's `parent` is the observer's own tool call). */
const unguarded = new WeakMap<object, object>();

function guardStep<T extends StepObservation<E>, E>(step: T): T {
  const safe = (fn: () => void) => {
    try {
      fn();
    } catch {
      // An observer's failure is never the run's.
    }
  };
  const guarded: StepObservation<E> = {
    end: (result) => safe(() => step.end(result)),
    fail: (error) => safe(() => step.fail(error)),
  };
  if (step.within) guarded.within = (fn) => step.within!(fn);
  unguarded.set(guarded, step);
  return guarded as T;
}

function guardRun(run: RunObservation): RunObservation {
  const start = <S>(open: () => S, fallback: S): S => {
    try {
      return open();
    } catch {
      return fallback;
    }
  };
  return {
    ...guardStep(run),
    modelCall: (call) => guardStep(start(() => run.modelCall(call), NOOP_STEP)),
    toolCall: (call) => guardStep(start(() => run.toolCall(call), NOOP_STEP)),
  };
}

/** Several observers as one (e.g. tracing and metrics); each sees its own parents. */
export function combineObservers(observers: readonly RunObserver[]): RunObserver | undefined {
  if (observers.length <= 1) return observers[0];
  const partsOf = new WeakMap<object, unknown[]>();
  const combineStep = <E>(parts: StepObservation<E>[]): StepObservation<E> => {
    const step: StepObservation<E> = {
      end: (result) => parts.forEach((part) => part.end(result)),
      fail: (error) => parts.forEach((part) => part.fail(error)),
      within: (fn) => parts.reduceRight<() => ReturnType<typeof fn>>((inner, part) => (part.within ? () => part.within!(inner) : inner), fn)(),
    };
    partsOf.set(step, parts);
    return step;
  };
  return {
    runStarted(start) {
      const parents = start.parent ? (partsOf.get(start.parent) as ToolCallObservation[] | undefined) : undefined;
      const runs = observers.map((observer, i) => {
        const { parent: _parent, ...rest } = start;
        return observer.runStarted(parents?.[i] ? { ...rest, parent: parents[i] } : rest);
      });
      return {
        ...combineStep(runs),
        modelCall: (call) => combineStep(runs.map((run) => run.modelCall(call))),
        toolCall: (call) => combineStep(runs.map((run) => run.toolCall(call))),
      };
    },
  };
}

/** Provider and model name of a LangChain chat model, read from the fields providers use. */
export function describeModel(model: BaseChatModel): ObservedModel {
  let provider = "unknown";
  try {
    provider = model._llmType();
  } catch {
    // A model without a type name stays `unknown`.
  }
  const fields = model as unknown as { model?: unknown; modelName?: unknown };
  const name = typeof fields.model === "string" && fields.model !== "" ? fields.model : typeof fields.modelName === "string" && fields.modelName !== "" ? fields.modelName : provider;
  return { provider, name };
}

/** What the answer says about itself: the provider's finish reason, model and response id. */
export function describeResponse(message: AIMessage): Omit<ModelCallEnd, "usage"> {
  const meta = (message.response_metadata ?? {}) as Record<string, unknown>;
  const text = (value: unknown) => (typeof value === "string" && value !== "" ? value : undefined);
  const finishReason = text(meta.finish_reason) ?? text(meta.stop_reason) ?? text(meta.finishReason);
  const responseModel = text(meta.model_name) ?? text(meta.model);
  const responseId = text(meta.id);
  return { ...(finishReason ? { finishReason } : {}), ...(responseModel ? { responseModel } : {}), ...(responseId ? { responseId } : {}) };
}
