import { ERRORS } from "../../kernel/errors.js";

function cell(text: string): string {
  return text.replace(/\r?\n/g, " ").replace(/\|/g, "\\|");
}

/** `docs/errors.md`: one row per code of `ERRORS`, in table order. */
export function renderErrorsTable(): string {
  const rows = Object.entries(ERRORS).map(([code, spec]) => `| \`${code}\` | ${cell(spec.description)} | ${cell(spec.solve)} |`);
  return [
    "# Error codes",
    "",
    "Every error Keel raises carries one of these stable codes (generated from `kernel/errors.ts` by `keel docs build`; do not edit by hand).",
    "",
    "| Code | Description | How to solve |",
    "|---|---|---|",
    ...rows,
    "",
  ].join("\n");
}
