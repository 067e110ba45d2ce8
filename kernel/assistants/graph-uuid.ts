import { createHash } from "node:crypto";

/** LangGraph's namespace for graph ids (RFC 4122's URL namespace), as `@langchain/langgraph-api` uses it. */
const NAMESPACE_GRAPH = "6ba7b821-9dad-11d1-80b4-00c04fd430c8";

/**
 * The assistant id a LangGraph server gives the system assistant of `graphId`: the UUID
 * v5 of the graph id in LangGraph's namespace. Keel's system assistants keep the stack
 * name as their id and accept this as an alias.
 *
 * @example
 * graphAssistantUuid("agent") // → "fe096781-5601-53d2-b2f6-0d3403f7e9ca"
 */
export function graphAssistantUuid(graphId: string): string {
  const namespace = Buffer.from(NAMESPACE_GRAPH.replace(/-/g, ""), "hex");
  const hash = createHash("sha1").update(namespace).update(graphId, "utf8").digest();
  const bytes = hash.subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
