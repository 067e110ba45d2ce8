import type { ParseArgsConfig } from "node:util";

/** One flag of a command: what `--help`, `docs/cli.md` and the argument parser are all made from. */
export interface FlagSpec {
  /** Placeholder of the value (`STACK`, `N`); without one the flag is a boolean switch, unless `allowed` names the values. */
  readonly value?: string;
  /** The only values the flag takes; any other is refused (exit 2) with this list. */
  readonly allowed?: readonly string[];
  /** The default, as the user would write it (or in words, e.g. "the scenario's stack"). */
  readonly default?: string;
  /** The flag may be given several times. */
  readonly multiple?: boolean;
  readonly short?: string;
  readonly description: string;
}

export interface HelpSection {
  readonly title: string;
  readonly lines: readonly string[];
}

/** A command (or a subcommand, `name: "contracts diff"`) as `--help` presents it. */
export interface CommandSpec {
  /** The words after `keel`, e.g. `run` or `contracts diff`. */
  readonly name: string;
  /** The usage line, as error messages quote it (`usage: keel …`). */
  readonly usage: string;
  readonly summary: string;
  readonly flags: Readonly<Record<string, FlagSpec>>;
  /** What stdout holds on success: with `--json` for commands that have it. */
  readonly output: readonly string[];
  /** Exit code → when. */
  readonly exitCodes: ReadonlyArray<readonly [number, string]>;
  readonly examples: readonly string[];
  /** Further sections after the flags (e.g. the environment `keel serve` reads). */
  readonly sections?: readonly HelpSection[];
}

export const HELP_FLAG: FlagSpec = { short: "h", description: "this text" };

/** Whether the flag takes a value (`--stack lead`) rather than being a switch (`--json`). */
export function takesValue(flag: FlagSpec): boolean {
  return flag.value !== undefined || flag.allowed !== undefined;
}

/** The `node:util` parseArgs options of a command: exactly its documented flags, plus `-h, --help`. */
export function parseOptionsOf(spec: CommandSpec): NonNullable<ParseArgsConfig["options"]> {
  const options: NonNullable<ParseArgsConfig["options"]> = {};
  for (const [name, flag] of Object.entries({ ...spec.flags, help: HELP_FLAG })) {
    options[name] = {
      type: takesValue(flag) ? "string" : "boolean",
      ...(flag.multiple ? { multiple: true } : {}),
      ...(flag.short === undefined ? {} : { short: flag.short }),
    };
  }
  return options;
}

/** Whether `-h` or `--help` is among the arguments (before a `--` terminator). */
export function helpRequested(args: readonly string[]): boolean {
  const end = args.indexOf("--");
  return (end === -1 ? args : args.slice(0, end)).some((a) => a === "--help" || a === "-h");
}

function flagColumn(name: string, flag: FlagSpec): string {
  const lead = flag.short === undefined ? `--${name}` : `-${flag.short}, --${name}`;
  if (!takesValue(flag)) return lead;
  return `${lead} ${flag.value ?? flag.allowed!.join("|")}`;
}

function flagText(flag: FlagSpec): string {
  const notes: string[] = [];
  if (flag.allowed !== undefined) notes.push(`one of: ${flag.allowed.join(", ")}`);
  if (flag.default !== undefined) notes.push(`default: ${flag.default}`);
  if (flag.multiple) notes.push("repeatable");
  return notes.length === 0 ? flag.description : `${flag.description} (${notes.join("; ")})`;
}

function table(rows: ReadonlyArray<readonly [string, string]>): string[] {
  const width = Math.max(...rows.map(([left]) => left.length)) + 2;
  return rows.map(([left, right]) => `  ${left.padEnd(width)}${right}`);
}

/** The one help format: usage, what it does, flags (defaults, allowed values), output, exit codes, examples. */
export function renderHelp(spec: CommandSpec): string {
  const flags = Object.entries({ ...spec.flags, help: HELP_FLAG }).map(([name, flag]) => [flagColumn(name, flag), flagText(flag)] as const);
  const lines = [spec.usage, "", spec.summary, "", "Options:", ...table(flags)];
  for (const section of spec.sections ?? []) lines.push("", `${section.title}:`, ...section.lines.map((l) => `  ${l}`));
  lines.push("", "Output:", ...spec.output.map((l) => `  ${l}`));
  lines.push("", "Exit codes:", ...table(spec.exitCodes.map(([code, when]) => [String(code), when] as const)));
  lines.push("", "Examples:", ...spec.examples.map((e) => `  ${e}`));
  return lines.join("\n");
}
