/**
 * Every public method of the LangGraph SDK's five clients (`assistants`, `threads`, `runs`,
 * `store`, `crons`), as `client.method`, read from the SDK's own prototypes — so a method a
 * new SDK release adds shows up in the suites that must cover each one (the two-worker e2e
 * suite, docs/http.md's check).
 */
import { Client } from "@langchain/langgraph-sdk";

export const SDK_CLIENTS = ["assistants", "threads", "runs", "store", "crons"] as const;

export function sdkMethods(): string[] {
  const client = new Client({ apiUrl: "http://127.0.0.1:1" });
  return SDK_CLIENTS.flatMap((name) =>
    Object.getOwnPropertyNames(Object.getPrototypeOf(client[name]))
      .filter((method) => method !== "constructor" && typeof (client[name] as unknown as Record<string, unknown>)[method] === "function")
      .map((method) => `${name}.${method}`),
  );
}
