/**
 * JSON as LangGraph Platform writes it: LangChain messages (anything with `toDict()`)
 * become `{ ...data, type }`, so `@langchain/langgraph-sdk` clients read `values.messages`
 * exactly as they would from LangGraph's own server.
 */
export function toWireJson(value: unknown): string {
  return JSON.stringify(value === undefined ? null : value, function (this: Record<string, unknown>, key: string, replaced: unknown) {
    const raw = this[key];
    if (raw !== null && typeof raw === "object" && typeof (raw as { toDict?: unknown }).toDict === "function") {
      const { type, data } = (raw as { toDict(): { type: string; data: Record<string, unknown> } }).toDict();
      return { ...data, type };
    }
    return replaced;
  });
}

/** A plain JSON value of `value` (messages turned into dicts), for replies Fastify serializes. */
export function toWireValue<T = unknown>(value: unknown): T {
  return JSON.parse(toWireJson(value)) as T;
}

/**
 * A thread's channel values as clients see them: runtime-internal entries (keys starting
 * with `__`, e.g. the loop's own bookkeeping) are not part of the state.
 */
export function publicValues(values: Record<string, unknown> | null | undefined): Record<string, unknown> {
  const wire = toWireValue<Record<string, unknown>>(values ?? {}) ?? {};
  return Object.fromEntries(Object.entries(wire).filter(([key]) => !key.startsWith("__")));
}
