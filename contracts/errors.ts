/**
 * The error base every layer shares: one `KeelError` class with a stable code
 * `KEEL_ERR_<AREA>_<PROBLEM>`. It lives here, in the bottom layer, so the contracts
 * raise it without importing the kernel. The codes the contracts raise are described
 * below; `kernel/errors.ts` adds every other code to the one table (`ERRORS`) that
 * `docs/errors.md` is generated from.
 */
export interface ErrorSpec {
  readonly description: string;
  readonly solve: string;
}

/** The codes raised by `contracts/` (registry, migrations, schema diff). */
export const CONTRACT_ERRORS = {
  KEEL_ERR_CONTRACT_VIOLATION: {
    description: "A payload written to a contract-typed channel, or handed across a contract boundary, does not validate.",
    solve: "Fix the payload at the given JSON pointer; invalid payloads fail closed.",
  },
  KEEL_ERR_CONTRACT_UNKNOWN: {
    description: "A contract name or version is not known to this Keel.",
    solve: "Use `name@version` of a published contract (see `schemas/`).",
  },
  KEEL_ERR_CONTRACT_NO_MIGRATION: {
    description: "No chain of registered migrations leads from a payload's contract version to the version asked for (or the direction is wrong: `upgrade` goes up, `project` goes down).",
    solve: "Register the missing `contracts/<name>/migrate.ts` step in `contracts/migrations.ts`, or ask for a version a chain reaches.",
  },
  KEEL_ERR_CONTRACTS_NOT_A_SCHEMA: {
    description: "A file given to `keel contracts diff` or `keel contracts check` is JSON but not a JSON Schema (an object or a boolean).",
    solve: "Pass the `*.schema.json` file itself, not a payload or a list.",
  },
} as const satisfies Record<string, ErrorSpec>;

export type ContractErrorCode = keyof typeof CONTRACT_ERRORS;

export interface KeelErrorOptions {
  /** JSON pointer of the offending value, when there is one. */
  pointer?: string;
  cause?: unknown;
  /** The plugin and hook an error was raised in. */
  plugin?: string;
  hook?: string;
  /** The `code` of a plugin's own error, kept when the kernel wraps it (as Rollup keeps `pluginCode`). */
  pluginCode?: string;
}

/** Marks Keel errors across copies of the package (a plugin that loads its own `keel`): `instanceof` alone would miss them. */
export const KEEL_ERROR_BRAND = Symbol.for("keel.error");

/** `Code` is the set of codes a layer may raise; `kernel/errors.ts` exports it typed with all of them. */
export class KeelError<Code extends string = string> extends Error {
  readonly [KEEL_ERROR_BRAND] = true;
  readonly code: Code;
  readonly pointer?: string;
  readonly plugin?: string;
  readonly hook?: string;
  readonly pluginCode?: string;

  constructor(code: Code, message: string, options: KeelErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "KeelError";
    this.code = code;
    if (options.pointer !== undefined) this.pointer = options.pointer;
    if (options.plugin !== undefined) this.plugin = options.plugin;
    if (options.hook !== undefined) this.hook = options.hook;
    if (options.pluginCode !== undefined) this.pluginCode = options.pluginCode;
  }

  override toString(): string {
    return `${this.code}: ${this.message}`;
  }
}

/** A `KeelError` with one of the contract layer's own codes. */
export function contractError(code: ContractErrorCode, message: string, options?: KeelErrorOptions): KeelError<ContractErrorCode> {
  return new KeelError(code, message, options);
}
