/**
 * The table of intended differences, read from docs/http.md ("Differences from the LangGraph
 * Agent Server"): the rows between `<!-- differences:start -->` and `<!-- differences:end -->`,
 * each `| id | where | Keel | LangGraph | why |`.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { packageRoot } from "../../kernel/package-root.js";

export const DIFFERENCES_DOC = join(packageRoot(), "docs", "http.md");
const START = "<!-- differences:start -->";
const END = "<!-- differences:end -->";

export interface DifferenceRow {
  id: string;
  where: string;
  keel: string;
  langgraph: string;
  why: string;
}

/** The rows of the table in `markdown` (docs/http.md's text); throws when the markers or the header are missing. */
export function differenceRows(markdown: string): DifferenceRow[] {
  const start = markdown.indexOf(START);
  const end = markdown.indexOf(END, start);
  if (start < 0 || end < 0) throw new Error(`docs/http.md has no ${START} … ${END} section`);
  const lines = markdown.slice(start + START.length, end).split("\n").map((l) => l.trim()).filter((l) => l !== "");
  if (!/^\|\s*id\s*\|\s*where\s*\|\s*Keel\s*\|\s*LangGraph\s*\|\s*why\s*\|$/.test(lines[0] ?? "")) throw new Error(`the differences table must start with "| id | where | Keel | LangGraph | why |", not ${JSON.stringify(lines[0])}`);
  return lines.slice(2).map((line) => {
    const cells = line.replace(/^\||\|$/g, "").split(/(?<!\\)\|/).map((c) => c.trim());
    if (cells.length !== 5 || !/^[A-Z]\d+$/.test(cells[0]!)) throw new Error(`not a differences row (five cells, an id like D1): ${line}`);
    const [id, where, keel, langgraph, why] = cells as [string, string, string, string, string];
    return { id, where, keel, langgraph, why };
  });
}

/** The ids of docs/http.md's differences table. */
export function differenceIds(): string[] {
  return differenceRows(readFileSync(DIFFERENCES_DOC, "utf8")).map((row) => row.id);
}
