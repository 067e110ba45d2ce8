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

/** How a report cites an external web source (never as a receipt). */
export const WEB_CITATION = "`[citation:Title](URL)`";

/** The report contract's evidence lines when the child's tool calls get receipts. */
const RECEIPT_EVIDENCE = [
  "- Cite the receipt of every action you claim, e.g. \"wrote report.md [r2 write_file]\" (the receipt ids are in the `## Tool receipts` section). An action claim without a citation is reported as UNVERIFIED.",
  "- Use `[rN]` only for your own tool calls, the receipts listed in your `## Tool receipts` section; never for work you did not do yourself or for something you read about.",
  `- Cite an external web source as ${WEB_CITATION}, never as \`[rN]\`.`,
  "- Give a verifiable handle for every deliverable: a file path, a command and its output, or a count (`verification: {type, expected, found}`).",
];

/** The report contract's evidence lines when receipts are switched off: there is nothing to cite by id. */
const HANDLE_EVIDENCE = [
  "- This run keeps no tool receipts, so do not write `[rN]` citations. Back every action you claim with a verifiable handle instead: a file path, a URL, a record id, an HTTP status, or a command and its output.",
  `- Cite an external web source as ${WEB_CITATION}.`,
  "- Give a verifiable handle for every deliverable: a file path, a URL, a record id, an HTTP status, a command and its output, or a count (`verification: {type, expected, found}`).",
];

/**
 * The report contract of the child's system prompt. `receipts`: whether the child's tool
 * calls get receipts (the receipts plugin is in its stack and enabled); without them the
 * contract asks for verifiable handles instead of receipt citations.
 */
export function reportContract(receipts: boolean): string {
  return [
    "## Report contract",
    ...(receipts ? RECEIPT_EVIDENCE : HANDLE_EVIDENCE),
    "- Say what failed, what you skipped and what is uncertain. Never claim more than you can show.",
    "- Finish by calling `return_result` once: `status` (succeeded | partial | failed), `text` (your report), `payload`, `completedSteps`, `missingSteps`, and where they apply `stoppedAtStep`, `verification`, `suggestions`, `retryable`, `reason`.",
    "- A partial result is accepted only with its inventory (completedSteps and missingSteps), a verification handle, and no missing step on the caller's critical path; otherwise it comes back as failed.",
    "- If you are told to stop, call `return_result` with what you have: it is the only tool left to you then.",
  ].join("\n");
}

/** The report contract with receipts on (the default stacks). */
export const REPORT_CONTRACT = reportContract(true);

export interface ChildPromptInput {
  args: TaskArgs;
  subagentType: string;
  /** Normalized (neutralized) acceptance criteria. */
  criteria: readonly string[];
  /** Whether an acceptance plugin will check them. */
  criteriaChecked: boolean;
  /** Whether the child's tool calls get receipts (default true); false: the contract asks for handles. */
  receipts?: boolean;
}

/**
 * The child's system message: who it works for, the report contract, the acceptance
 * criteria, the caller's critical path and output schema, and the caller's next action.
 * Everything taken from the caller's arguments is neutralized (it is data, not markup).
 */
export function childSystemPrompt({ args, subagentType, criteria, criteriaChecked, receipts = true }: ChildPromptInput): string {
  const sections = [
    `You are a subagent (type: ${neutralizeMarkup(subagentType)}) doing one delegated task for a lead agent, in the lead's workspace. ` +
      "The lead sees only what you hand back with `return_result`.",
    `## Task\n${neutralizeMarkup(args.description)}`,
    reportContract(receipts),
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
