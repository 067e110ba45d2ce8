import type { ToolMessage } from "@langchain/core/messages";
import type { ReceiptV1 } from "../../contracts/receipt/v1.js";
import { validate } from "../../contracts/registry.js";
import { canonicalJson, sha256Hex } from "../../kernel/hashing.js";
import { keelMeta } from "../../kernel/loop/message-meta.js";
import type { ToolCall } from "../../kernel/plugin/types.js";

export type Receipt = ReceiptV1;

/** `r<N>`, 1-based. */
export function receiptId(n: number): string {
  return `r${n}`;
}

/** First 16 hex digits of the SHA-256 of `text` (UTF-8). */
export function shortSha256(text: string): string {
  return sha256Hex(text).slice(0, 16);
}

/** Canonical JSON of the arguments (keys sorted); anything but a plain object hashes as `{}`. */
export function argsText(args: unknown): string {
  const isObject = typeof args === "object" && args !== null && !Array.isArray(args);
  return canonicalJson(isObject ? args : {});
}

/** The output as hashed: string content as is, array content (parts) as canonical JSON. */
export function outputText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return canonicalJson(content);
  return content === undefined || content === null ? "" : canonicalJson(content);
}

export interface StampInput {
  id: string;
  toolCall: ToolCall;
  /** The tool result, or null when the inner handler threw. */
  response: ToolMessage | null;
  createdAt: string;
}

/** Build a receipt@1 for one tool call. */
export function buildReceipt({ id, toolCall, response, createdAt }: StampInput): Receipt {
  const output = response === null ? "" : outputText(response.content);
  return {
    id,
    toolCallId: toolCall.id,
    tool: toolCall.name,
    status: response === null || response.status === "error" ? "error" : "success",
    argsSha256: shortSha256(argsText(toolCall.args)),
    outputSha256: shortSha256(output),
    bytes: Buffer.byteLength(output, "utf8"),
    createdAt,
    ...approvalOf(response),
  };
}

/**
 * The approval a tool result carries as `keel.approval` (set by a plugin that asked a human,
 * such as human-approval, on the response it hands back): copied onto the receipt.
 */
function approvalOf(response: ToolMessage | null): { approval?: NonNullable<Receipt["approval"]> } {
  const meta = response === null ? undefined : (keelMeta(response).approval as Record<string, unknown> | undefined);
  if (!meta || typeof meta !== "object" || typeof meta.at !== "string") return {};
  const decision = meta.decision;
  if (decision !== "approve" && decision !== "edit" && decision !== "reject") return {};
  return { approval: { decision, ...(typeof meta.by === "string" && meta.by !== "" ? { by: meta.by } : {}), at: meta.at } };
}

/**
 * A receipt that could not be written (the kernel validates the channel fail-closed and
 * would end the run) is dropped instead: a failure to stamp never breaks the tool call.
 */
export function isValidReceipt(receipt: unknown): receipt is Receipt {
  return validate("receipt@1", receipt).valid;
}
