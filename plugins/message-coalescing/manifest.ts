import type { Manifest } from "../../kernel/plugin/types.js";

/** message-coalescing has no options. */
export const messageCoalescingConfigSchema = { type: "object", additionalProperties: false, properties: {} } as const;

export const messageCoalescingManifest: Manifest = {
  name: "message-coalescing",
  version: "0.1.0",
  kind: "middleware",
  kernel: ">=0.1.0 <1",
  description:
    "Innermost request repair: the provider gets one leading system message (every system part merged in order), no orphan tool results, a result right after every tool call (a synthetic error result for a dangling one), and user content first after the system message.",
  // Innermost among built-ins: every built-in with a wrapModelCall runs outside it, so what it
  // repairs is what is sent (error-fallback edits only the response, but retries run through here too).
  requiresBefore: [
    { name: "receipts", optional: true },
    { name: "tool-progress", optional: true },
    { name: "error-fallback", optional: true },
    { name: "durable-context", optional: true },
    { name: "loop-detection", optional: true },
    { name: "token-budget", optional: true },
    { name: "subagents", optional: true },
  ],
  hooks: {
    wrapModelCall: { mutates: ["model.request"] },
  },
  config: messageCoalescingConfigSchema as unknown as Record<string, unknown>,
};
