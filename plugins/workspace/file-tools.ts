import { mkdir, readdir, readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import type { KeelTool } from "../../kernel/plugin/types.js";
import { checkPathArgument, resolveInWorkspace } from "./paths.js";
import { errorResult, inWorkspace } from "./tool-results.js";
import { assertWriteAllowed, recordWrite, type WorkspaceWrite } from "./write-log.js";

/** A file tool's result artifact: what was written and under which lease epoch. */
export interface FileWriteArtifact {
  kind: "file_write";
  path: string;
  bytes: number;
  epoch: number | null;
  leaseEpoch?: number;
}

function fileWriteArtifact(write: WorkspaceWrite): FileWriteArtifact {
  return { kind: "file_write", path: write.path, bytes: write.bytes, epoch: write.epoch, ...(write.leaseEpoch === undefined ? {} : { leaseEpoch: write.leaseEpoch }) };
}

const pathProperty = { type: "string", minLength: 1, description: "Path relative to the workspace root (POSIX separators)." };

export const readFileTool: KeelTool = {
  name: "read_file",
  description:
    "Read a text file of the workspace. Optional startLine/endLine (1-based, inclusive) return only those lines.",
  schema: {
    type: "object",
    additionalProperties: false,
    required: ["path"],
    properties: {
      path: pathProperty,
      startLine: { type: "integer", minimum: 1, description: "First line to return (1-based)." },
      endLine: { type: "integer", minimum: 1, description: "Last line to return (inclusive)." },
    },
  },
  async invoke(args, ctx) {
    const problem = checkPathArgument(args.path) ?? checkLine(args.startLine, "startLine") ?? checkLine(args.endLine, "endLine");
    if (problem !== undefined) return errorResult(problem);
    const userPath = args.path as string;
    return inWorkspace(ctx, userPath, async (dir) => {
      const target = resolveInWorkspace(dir, userPath);
      const text = await readFile(target.abs, "utf8");
      if (args.startLine === undefined && args.endLine === undefined) return text;
      return selectLines(text, target.rel, args.startLine as number | undefined, args.endLine as number | undefined);
    });
  },
};

function checkLine(value: unknown, name: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1) return `\`${name}\` must be an integer >= 1`;
  return undefined;
}

/** The exact slice of `text` holding lines start..end (its line ends kept). */
function selectLines(text: string, shown: string, start = 1, end?: number) {
  const lines = text.split("\n");
  // A final newline ends the last line; it does not start another one.
  if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  const last = end ?? lines.length;
  if (end !== undefined && end < start) return errorResult(`endLine ${end} is before startLine ${start}`);
  if (start > lines.length) return errorResult(`startLine ${start} is past the end of \`${shown}\` (${lines.length} lines)`);
  const picked = lines.slice(start - 1, Math.min(last, lines.length));
  const endsWithNewline = Math.min(last, lines.length) < lines.length || text.endsWith("\n");
  return picked.join("\n") + (endsWithNewline ? "\n" : "");
}

export const writeFileTool: KeelTool = {
  name: "write_file",
  description: "Create or overwrite a file of the workspace with the given content (parent directories are created).",
  schema: {
    type: "object",
    additionalProperties: false,
    required: ["path", "content"],
    properties: { path: pathProperty, content: { type: "string", description: "The whole new content of the file." } },
  },
  async invoke(args, ctx) {
    const problem = checkPathArgument(args.path) ?? (typeof args.content === "string" ? undefined : "`content` must be a string");
    if (problem !== undefined) return errorResult(problem);
    const userPath = args.path as string;
    const content = args.content as string;
    return inWorkspace(ctx, userPath, async (dir) => {
      const target = resolveInWorkspace(dir, userPath);
      if (target.rel === ".") return errorResult(`\`${userPath}\` is the workspace directory itself, not a file`);
      await assertWriteAllowed(ctx, "write_file", target.rel);
      await mkdir(path.dirname(target.abs), { recursive: true });
      await writeFile(target.abs, content, "utf8");
      const bytes = Buffer.byteLength(content, "utf8");
      const write = await recordWrite(ctx, "write_file", target.rel, bytes);
      return { content: `wrote ${bytes} bytes to ${target.rel}`, artifact: fileWriteArtifact(write) };
    });
  },
};

export const strReplaceTool: KeelTool = {
  name: "str_replace",
  description: "Replace text in a workspace file. oldText must occur exactly once in the file; it is replaced by newText.",
  schema: {
    type: "object",
    additionalProperties: false,
    required: ["path", "oldText", "newText"],
    properties: {
      path: pathProperty,
      oldText: { type: "string", minLength: 1, description: "Text to replace; must occur exactly once." },
      newText: { type: "string", description: "Replacement text." },
    },
  },
  async invoke(args, ctx) {
    const problem =
      checkPathArgument(args.path) ??
      (typeof args.oldText === "string" && args.oldText.length > 0 ? undefined : "`oldText` must be a non-empty string") ??
      (typeof args.newText === "string" ? undefined : "`newText` must be a string");
    if (problem !== undefined) return errorResult(problem);
    const userPath = args.path as string;
    const oldText = args.oldText as string;
    const newText = args.newText as string;
    return inWorkspace(ctx, userPath, async (dir) => {
      const target = resolveInWorkspace(dir, userPath);
      const text = await readFile(target.abs, "utf8");
      const count = countOccurrences(text, oldText);
      if (count !== 1) {
        return errorResult(`oldText occurs ${count} times in \`${target.rel}\`; it must occur exactly once (add surrounding text to make it unique)`);
      }
      const at = text.indexOf(oldText);
      // Slicing, not String.replace: `$&`, `$1` in newText must stay literal.
      const next = text.slice(0, at) + newText + text.slice(at + oldText.length);
      await assertWriteAllowed(ctx, "str_replace", target.rel);
      await writeFile(target.abs, next, "utf8");
      const write = await recordWrite(ctx, "str_replace", target.rel, Buffer.byteLength(next, "utf8"));
      return { content: `replaced 1 occurrence in ${target.rel}`, artifact: fileWriteArtifact(write) };
    });
  },
};

/** Occurrences, overlapping ones included: "aa" occurs twice in "aaa", so the edit would be ambiguous. */
function countOccurrences(text: string, needle: string): number {
  let count = 0;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + 1)) count++;
  return count;
}

export const lsTool: KeelTool = {
  name: "ls",
  description: "List a workspace directory (default: the workspace root), one entry per line, directories with a trailing `/`.",
  schema: {
    type: "object",
    additionalProperties: false,
    properties: { path: { ...pathProperty, description: "Directory relative to the workspace root (default `.`)." } },
  },
  async invoke(args, ctx) {
    const problem = args.path === undefined ? undefined : checkPathArgument(args.path);
    if (problem !== undefined) return errorResult(problem);
    const userPath = (args.path as string | undefined) ?? ".";
    return inWorkspace(ctx, userPath, async (dir) => {
      const target = resolveInWorkspace(dir, userPath);
      if (!(await stat(target.abs)).isDirectory()) return errorResult(`\`${target.rel}\` is not a directory`);
      const entries = await readdir(target.abs, { withFileTypes: true });
      return entries
        .map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name))
        .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
        .join("\n");
    });
  },
};
