import { parseArgs, type ParseArgsConfig } from "node:util";
import { KeelError } from "../../kernel/errors.js";
import { parseOptionsOf, type CommandSpec } from "./command-spec.js";

type Options = NonNullable<ParseArgsConfig["options"]>;
type Parsed<T extends Options> = ReturnType<typeof parseArgs<{ options: T; allowPositionals: true; strict: true }>>;

/** `node:util` parseArgs with its errors turned into `KEEL_ERR_CLI_USAGE` (exit 2) naming the usage line. */
export function parseCommandArgs<T extends Options>(args: string[], options: T, usage: string): Parsed<T> {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true }) as Parsed<T>;
  } catch (error) {
    throw new KeelError("KEEL_ERR_CLI_USAGE", `${(error as Error).message}; ${usage}`);
  }
}

/** Whether `--json` was asked for, read before full parsing so even a usage error answers in JSON. */
export function wantsJson(args: readonly string[]): boolean {
  return args.includes("--json");
}

type ValueOf<F> = F extends { readonly multiple: true } ? string[] : F extends { readonly value: string } | { readonly allowed: readonly string[] } ? string : boolean;

/** The parsed values of a command's flags, typed from its spec. */
export type FlagValues<Flags> = { [K in keyof Flags]?: ValueOf<Flags[K]> } & { help?: boolean };

/** A usage error (`KEEL_ERR_CLI_USAGE`) whose message lists the values allowed. */
export function choiceError(what: string, got: string, allowed: readonly string[], usage?: string): KeelError {
  return new KeelError("KEEL_ERR_CLI_USAGE", `${what} must be one of ${allowed.join(", ")}, got \`${got}\`${usage === undefined ? "" : `; ${usage}`}`);
}

/**
 * Parse a command's arguments with exactly the flags its spec documents (plus `-h, --help`);
 * a flag with `allowed` values refuses any other with `KEEL_ERR_CLI_USAGE` listing them.
 */
export function parseSpecArgs<S extends CommandSpec>(args: string[], spec: S): { values: FlagValues<S["flags"]>; positionals: string[] } {
  const { values, positionals } = parseCommandArgs(args, parseOptionsOf(spec), spec.usage);
  for (const [name, flag] of Object.entries(spec.flags)) {
    const given = (values as Record<string, unknown>)[name];
    if (flag.allowed === undefined || given === undefined) continue;
    for (const value of Array.isArray(given) ? given : [given]) {
      if (!flag.allowed.includes(value as string)) throw choiceError(`--${name}`, String(value), flag.allowed);
    }
  }
  return { values: values as FlagValues<S["flags"]>, positionals };
}

/** A subcommand that is not one of `allowed`: the error lists them. */
export function subcommandError(command: string, got: string | undefined, allowed: readonly string[], usage: string): KeelError {
  if (got === undefined) return new KeelError("KEEL_ERR_CLI_USAGE", `missing subcommand (one of ${allowed.join(", ")}); ${usage}`);
  return new KeelError("KEEL_ERR_CLI_USAGE", `unknown subcommand \`${got}\` of \`keel ${command}\`; one of ${allowed.join(", ")}; ${usage}`);
}
