/** One scripted bash answer: the first entry whose `match` matches the command wins. */
export interface ScriptedBashEntry {
  /** A substring of the command, or a regex written `/source/flags`. */
  match: string;
  output: string;
  exitCode?: number;
}

/** The workspace plugin's options, defaults applied. */
export interface WorkspaceOptions {
  root: string;
  bash: "on" | "off";
  scriptedBash?: readonly ScriptedBashEntry[];
  maxOutputChars: number;
}

export const DEFAULT_ROOT = ".keel/workspaces";
export const DEFAULT_MAX_OUTPUT_CHARS = 100_000;

/**
 * Read the options from a tool's or hook's `config`. The kernel validates them and
 * applies defaults when the stack is built; the defaults are applied again here so
 * the helpers also work with a partial config (tests, the scenario runner).
 */
export function readWorkspaceOptions(config: Readonly<Record<string, unknown>> | undefined): WorkspaceOptions {
  const c = config ?? {};
  const root = typeof c.root === "string" && c.root.length > 0 ? c.root : DEFAULT_ROOT;
  const bash = c.bash === "off" ? "off" : "on";
  const maxOutputChars =
    typeof c.maxOutputChars === "number" && Number.isInteger(c.maxOutputChars) && c.maxOutputChars > 0
      ? c.maxOutputChars
      : DEFAULT_MAX_OUTPUT_CHARS;
  const options: WorkspaceOptions = { root, bash, maxOutputChars };
  if (Array.isArray(c.scriptedBash)) options.scriptedBash = c.scriptedBash as ScriptedBashEntry[];
  return options;
}
