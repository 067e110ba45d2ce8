import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { HumanMessage, SystemMessage, type BaseMessage } from "@langchain/core/messages";
import { messageText } from "./message-meta.js";

export type Summarizer = (messages: BaseMessage[]) => Promise<string>;

/**
 * Deterministic extractive summary (the scripted model's summarizer: no model call,
 * no scripted turn consumed): the first line of each message, role-tagged, capped.
 */
export const extractiveSummary: Summarizer = async (messages) => {
  const lines: string[] = [];
  let chars = 0;
  for (const message of messages) {
    const first = messageText(message).split("\n").find((l) => l.trim().length > 0)?.trim() ?? "";
    if (!first) continue;
    const line = `- ${message.getType()}: ${first.slice(0, 200)}`;
    if (chars + line.length > 4000) {
      lines.push(`- … ${messages.length - lines.length} more messages`);
      break;
    }
    lines.push(line);
    chars += line.length + 1;
  }
  return lines.join("\n");
};

/** A summarizer that asks a real model (a model call that is not counted as a turn). */
export function modelSummarizer(model: BaseChatModel): Summarizer {
  return async (messages) => {
    const transcript = messages.map((m) => `${m.getType()}: ${messageText(m)}`).join("\n");
    const answer = await model.invoke([
      new SystemMessage("Summarize the conversation below for the agent that will continue it: decisions, facts found, files touched, open work. Be brief and factual."),
      new HumanMessage(transcript),
    ]);
    return messageText(answer);
  };
}
