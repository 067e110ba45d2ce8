import type { TaskArgs } from "./task-tool.js";

/** Tag-like markup (`<system-reminder>`, `</tool_result>`) a caller's text must not carry into the child's prompt. */
const TAG = /<(\/?[A-Za-z][\w.:-]*(?:\s[^<>]*)?\/?)>/g;

/** Replace the angle brackets of tag-like text with `‹ ›`: same text, no longer markup. */
export function neutralizeMarkup(text: string): string {
  return text.replace(TAG, "‹$1›");
}

/** Criteria as the child sees them when no acceptance plugin normalizes them: trimmed, bounded, neutralized. */
export function fallbackCriteria(raw: readonly unknown[] | undefined): string[] {
  const out: string[] = [];
  for (const item of raw ?? []) {
    if (typeof item !== "string") continue;
    const text = neutralizeMarkup(item.trim());
    if (text.length === 0 || text.length > 500 || out.includes(text)) continue;
    if (out.length < 20) out.push(text);
  }
  return out;
}

export const REPORT_CONTRACT = [
  "## Report contract",
  "- Cite the receipt of every action you claim, e.g. \"wrote report.md [r2 write_file]\" (the receipt ids are in the `## Tool receipts` section). An action claim without a citation is reported as UNVERIFIED.",
  "- Give a verifiable handle for every deliverable: a file path, a command and its output, or a count (`verification: {type, expected, found}`).",
  "- Say what failed, what you skipped and what is uncertain. Never claim more than you can show.",
  "- Finish by calling `return_result` once: `status` (succeeded | partial | failed), `text` (your report), `payload`, `completedSteps`, `missingSteps`, and where they apply `stoppedAtStep`, `verification`, `suggestions`, `retryable`, `reason`.",
  "- A partial result is accepted only with its inventory (completedSteps and missingSteps), a verification handle, and no missing step on the caller's critical path; otherwise it comes back as failed.",
  "- If you are told to stop, call `return_result` with what you have: it is the only tool left to you then.",
].join("\n");

export interface ChildPromptInput {
  args: TaskArgs;
  subagentType: string;
  /** Normalized (neutralized) acceptance criteria. */
  criteria: readonly string[];
  /** Whether an acceptance plugin will check them. */
  criteriaChecked: boolean;
}

/**
 * The child's system message: who it works for, the report contract, the acceptance
 * criteria, the caller's critical path and output schema, and the caller's next action.
 * Everything taken from the caller's arguments is neutralized (it is data, not markup).
 */
export function childSystemPrompt({ args, subagentType, criteria, criteriaChecked }: ChildPromptInput): string {
  const sections = [
    `You are a subagent (type: ${neutralizeMarkup(subagentType)}) doing one delegated task for a lead agent, in the lead's workspace. ` +
      "The lead sees only what you hand back with `return_result`.",
    `## Task\n${neutralizeMarkup(args.description)}`,
    REPORT_CONTRACT,
  ];
  if (criteria.length > 0) {
    const how = criteriaChecked ? "checked deterministically after you finish; make them hold and say how" : "shown for guidance; not checked automatically";
    sections.push(`## Acceptance criteria (${how})\n${criteria.map((c) => `- ${c}`).join("\n")}`);
  }
  const critical = (args.criticalPath ?? []).map((s) => neutralizeMarkup(s.trim())).filter((s) => s.length > 0);
  if (critical.length > 0) {
    sections.push(`## Caller's critical path (a result missing any of these steps is failed)\n${critical.map((s) => `- ${s}`).join("\n")}`);
  }
  if (args.outputSchema !== undefined) {
    sections.push(`## Output schema (your payload must match it)\n${neutralizeMarkup(JSON.stringify(args.outputSchema))}`);
  }
  const next = args.callerNextAction?.trim();
  if (next) sections.push(`## What the caller will do next with your result\n${neutralizeMarkup(next)}`);
  return sections.join("\n\n");
}
