import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { BUILTIN_PLUGINS, SERVICE_PLUGINS } from "../../plugins/builtins.js";

/**
 * The kernel knows no plugin: no file under kernel/ names a built-in plugin or one of the
 * channels a built-in plugin declares, neither as a string literal (`"receipts"`,
 * `{ "token-budget": … }`, `get("workspace")`) nor as a property read of channel values
 * (`values.receipts`, `state.bashRuns`). Code is read with the TypeScript parser, so
 * comments and documentation may still mention plugins.
 *
 * Allowed:
 * - kernel/ports/: the port interfaces plugins share. A port is named by its interface
 *   (`workspace`, `receipts`, `acceptance`, …); any plugin may provide it.
 * - ALLOWED below: a literal that is another contract's value and only happens to spell a
 *   plugin name, each with its reason.
 */
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const ALLOWED: ReadonlyArray<{ file: string; literal: string; why: string }> = [
  { file: "kernel/channels/kernel-channels.ts", literal: "subagents", why: "a status@2 limit type (`limit.type`), not the plugin" },
  { file: "kernel/loop/status.ts", literal: "subagents", why: "a status@2 limit type (`limit.type`), not the plugin" },
  { file: "kernel/runs/run-feed.ts", literal: "subagents", why: "a run-status feed activity kind (`activity.kind`, `activity.subagents`), not the plugin" },
  { file: "kernel/runs/run-summary.ts", literal: "subagents", why: "a run-status feed activity kind (`activity.kind`, `activity.subagents`), not the plugin" },
];

const plugins = [...BUILTIN_PLUGINS, ...SERVICE_PLUGINS];
const pluginNames = new Set(plugins.map((p) => p.manifest.name));
const channelNames = new Set(plugins.flatMap((p) => Object.keys(p.manifest.channels ?? {})));
const named = new Set([...pluginNames, ...channelNames]);

function kernelFiles(dir = join(ROOT, "kernel")): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return kernelFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/** `file:line: what` for every mention of a plugin or a plugin's channel in the code of `source`. */
export function pluginMentions(fileName: string, source: string, names: ReadonlySet<string>): string[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const at = (node: ts.Node) => file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1;
  const visit = (node: ts.Node): void => {
    if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && names.has(node.text)) {
      found.push(`${fileName}:${at(node)}: "${node.text}"`);
    }
    if (ts.isPropertyAccessExpression(node) && names.has(node.name.text) && /(^|\.)(values|state)\??$/.test(node.expression.getText(file))) {
      found.push(`${fileName}:${at(node)}: ${node.getText(file)}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

describe("the kernel knows no plugin", () => {
  it("no kernel file outside kernel/ports names a built-in plugin or a built-in plugin's channel", () => {
    const mentions = kernelFiles()
      .map((path) => relative(ROOT, path))
      .filter((path) => !path.startsWith("kernel/ports/"))
      .flatMap((path) => pluginMentions(path, readFileSync(join(ROOT, path), "utf8"), named))
      .filter((mention) => !ALLOWED.some((a) => mention.startsWith(`${a.file}:`) && mention.endsWith(`: "${a.literal}"`)));
    expect(mentions).toEqual([]);
  });

  it("the check sees literals and channel reads, not comments", () => {
    const names = new Set(["receipts", "token-budget", "bashRuns"]);
    const source = [
      "// receipts are stamped by the receipts plugin",
      'const a = values.receipts; const b = x.plugins.get("token-budget");',
      "const c = { [`bashRuns`]: 1 }; const d = report.receipts; const e = result.values.bashRuns;",
    ].join("\n");
    expect(pluginMentions("f.ts", source, names)).toEqual(['f.ts:2: values.receipts', 'f.ts:2: "token-budget"', 'f.ts:3: "bashRuns"', "f.ts:3: result.values.bashRuns"]);
  });

  it("the names checked are the built-ins' plugin and channel names", () => {
    for (const name of ["receipts", "subagents", "workspace", "token-budget", "gateway", "store-sql"]) expect(pluginNames.has(name)).toBe(true);
    for (const name of ["receipts", "receiptRun", "delegations", "bashRuns", "leases"]) expect(channelNames.has(name)).toBe(true);
  });
});
