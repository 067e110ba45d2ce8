/**
 * LangSmith tracing is LangChain's own (through `@langchain/core` callbacks): Keel neither
 * starts nor stops it. It is on when one of these variables is `true` — the rule of
 * `@langchain/core`'s `isTracingEnabled()` — and it sends with `LANGSMITH_API_KEY`.
 */
export const LANGSMITH_TRACING_VARIABLES = ["LANGSMITH_TRACING_V2", "LANGCHAIN_TRACING_V2", "LANGSMITH_TRACING", "LANGCHAIN_TRACING"] as const;

/** Whether LangChain traces this process's model calls and graph runs to LangSmith. */
export function langsmithTracingEnabled(env: NodeJS.ProcessEnv): boolean {
  return LANGSMITH_TRACING_VARIABLES.some((name) => env[name] === "true");
}
