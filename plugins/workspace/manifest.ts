import type { Manifest } from "../../kernel/plugin/types.js";

/** Bash runs keep at most this much of the command; a longer one is flagged `commandTruncated`. */
export const COMMAND_CHARS = 500;
/** Bash runs keep the last this-many characters of the output as `outputTail`. */
export const OUTPUT_TAIL_CHARS = 1000;

/** JSON Schema of the workspace options (defaults are applied when the stack is built). */
export const workspaceConfigSchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    root: {
      type: "string",
      minLength: 1,
      default: ".keel/workspaces",
      description: "Directory under which each thread gets its own directory; relative paths resolve against the process's working directory.",
    },
    bash: {
      enum: ["on", "off"],
      default: "on",
      description: "Whether the bash tool runs real commands (`off`: it answers that bash is disabled).",
    },
    scriptedBash: {
      type: "array",
      description: "Scripted bash results; when present, bash never runs real commands. First entry whose `match` matches wins.",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["match", "output"],
        properties: {
          match: { type: "string", minLength: 1, description: "A substring of the command, or a regex written `/source/flags`." },
          output: { type: "string" },
          exitCode: { type: "integer", default: 0 },
        },
      },
    },
    maxOutputChars: {
      type: "integer",
      minimum: 1,
      default: 100000,
      description: "How much of a real command's combined output is kept (the tail; earlier output is dropped).",
    },
    maxTimeoutSeconds: {
      type: "number",
      exclusiveMinimum: 0,
      default: 600,
      description: "The longest wall time a bash call may ask for with `timeoutSeconds`; a larger request is cut to it.",
    },
    maxCpuSeconds: {
      type: "number",
      exclusiveMinimum: 0,
      default: 1200,
      description: "CPU seconds (user + system) a bash command's whole process tree may use; then its process group is killed.",
    },
    maxMemoryMiB: {
      type: "number",
      exclusiveMinimum: 0,
      default: 4096,
      description: "Resident memory (MiB, summed over the process tree) a bash command may use; then its process group is killed.",
    },
    watchdogDeadlineMs: {
      type: "integer",
      minimum: 50,
      default: 2000,
      description:
        "A bash command's watchdog kills its process group when the worker has not renewed it for this long (it renews every quarter of it). Keep it below the run service's lease TTL minus its heartbeat interval.",
    },
  },
} as const;

/** JSON Schema of one `bashRuns` entry. */
export const bashRunSchema = {
  type: "object",
  additionalProperties: false,
  required: ["command", "commandTruncated", "exitCode", "outputTail", "truncated", "timedOut", "persistentShell", "at", "toolCallId"],
  properties: {
    command: { type: "string", maxLength: COMMAND_CHARS },
    commandTruncated: { type: "boolean" },
    exitCode: { type: ["integer", "null"] },
    outputTail: { type: "string", maxLength: OUTPUT_TAIL_CHARS },
    truncated: { type: "boolean" },
    timedOut: { type: "boolean" },
    persistentShell: { const: false },
    at: { type: "string", format: "date-time" },
    toolCallId: { type: "string" },
  },
} as const;

export const workspaceManifest: Manifest = {
  name: "workspace",
  version: "0.1.0",
  kind: "service",
  kernel: ">=0.1.0 <1",
  description:
    "A directory per thread with the tools read_file, write_file, str_replace, ls and bash; paths never escape it, and every run of its bash tool is recorded in `bashRuns`.",
  provides: ["workspace", "rollback"],
  // Receipts is the outermost tool wrapper among built-ins, so it also records calls guards refused.
  requiresBefore: [{ name: "receipts", optional: true }],
  channels: {
    bashRuns: {
      schema: { type: "array", items: bashRunSchema },
      reducer: "append",
      runtimeOwned: true,
      description: "Every call of the workspace's own bash tool: command, exit code, output tail (acceptance evidence).",
    },
  },
  hooks: {
    wrapToolCall: { mutates: ["bashRuns"] },
  },
  config: workspaceConfigSchema as unknown as Record<string, unknown>,
};
