/**
 * `keel contracts check`: this tree's `schemas/*.schema.json` against a base (a
 * directory holding `schemas/`, or a git ref). Within a major version (`<name>.v<N>`) a
 * change must be compatible in the mode; a version published in the base must still be
 * here; a new major needs a registered migration from the version before it.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { breaks, type CompatibilityMode } from "../../contracts/compat/codes.js";
import { diffSchemas } from "../../contracts/compat/diff.js";
import { MIGRATIONS } from "../../contracts/migrations.js";
import { KeelError } from "../../kernel/errors.js";

export const SCHEMA_FILE = /^([a-z0-9][a-z0-9-]*)\.v(\d+)\.schema\.json$/;

export interface Violation {
  /** `schemas/<file>`, relative to the package root. */
  file: string;
  /** A change code of `diffSchemas`, or `VERSION_REMOVED` / `MIGRATION_MISSING`. */
  code: string;
  pointer: string;
  message: string;
}

export interface CheckResult {
  ok: boolean;
  violations: Violation[];
  /** Files present on both sides, compared schema to schema. */
  compared: string[];
}

export interface CheckOptions {
  /** The package root whose `schemas/` is checked. */
  cwd: string;
  /** A directory holding `schemas/`, or a git ref of the repository at `cwd`. */
  base: string;
  mode?: CompatibilityMode;
  /** Registered migrations (default: `contracts/migrations.ts`). */
  migrations?: readonly { contract: string; from: number; to: number }[];
}

/** File name → text of every `*.schema.json` in a directory. */
function readDir(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const name of readdirSync(dir).sort()) if (name.endsWith(".schema.json")) files.set(name, readFileSync(join(dir, name), "utf8"));
  return files;
}

function git(cwd: string, args: string[]): string {
  return execFileSync("git", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], maxBuffer: 64 * 1024 * 1024 });
}

/** The base's schema files: from a directory, else from a git ref (`git ls-tree`, `git show REF:./schemas/<file>`). */
export function readBase(cwd: string, base: string): Map<string, string> {
  const dir = resolve(cwd, base);
  if (existsSync(dir) && statSync(dir).isDirectory()) {
    const schemas = join(dir, "schemas");
    if (!existsSync(schemas)) throw new KeelError("KEEL_ERR_CONTRACTS_BASE", `\`${base}\` is a directory but holds no \`schemas/\`; pass the root of a checkout`);
    return readDir(schemas);
  }
  try {
    git(cwd, ["rev-parse", "--verify", "--quiet", `${base}^{commit}`]);
  } catch {
    throw new KeelError("KEEL_ERR_CONTRACTS_BASE", `\`${base}\` is neither a directory nor a git ref known in \`${cwd}\` (in CI, fetch it first: \`git fetch origin main\`)`);
  }
  const files = new Map<string, string>();
  const listed = git(cwd, ["ls-tree", "--name-only", "-z", base, "--", "schemas/"]).split("\0").filter(Boolean);
  for (const path of listed.sort()) {
    const name = path.slice(path.lastIndexOf("/") + 1);
    if (name.endsWith(".schema.json")) files.set(name, git(cwd, ["show", `${base}:./schemas/${name}`]));
  }
  return files;
}

function parse(file: string, text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new KeelError("KEEL_ERR_CLI_JSON", `\`${file}\` is not valid JSON: ${(error as Error).message}`);
  }
}

function directions(mode: CompatibilityMode, change: { backward: boolean; forward: boolean }): string {
  const broken = [!change.backward && mode !== "forward" ? "backward" : "", !change.forward && mode !== "backward" ? "forward" : ""].filter(Boolean);
  return broken.join(" and ");
}

/** Compare this tree's schemas with the base's; throws KeelError for a bad base or unreadable files (exit 2). */
export function checkContracts(options: CheckOptions): CheckResult {
  const mode = options.mode ?? "backward";
  const migrations = options.migrations ?? MIGRATIONS;
  const here = join(options.cwd, "schemas");
  if (!existsSync(here)) throw new KeelError("KEEL_ERR_CLI_FILE", `no \`schemas/\` directory in \`${options.cwd}\`; run the check from the package root`);
  const [ours, theirs] = [readDir(here), readBase(options.cwd, options.base)];
  const violations: Violation[] = [];
  const compared: string[] = [];

  for (const [name, text] of theirs) {
    const file = `schemas/${name}`;
    const mine = ours.get(name);
    if (mine === undefined) {
      const ref = SCHEMA_FILE.exec(name);
      const what = ref ? `\`${ref[1]}@${ref[2]}\`` : `\`${name}\``;
      violations.push({ file, code: "VERSION_REMOVED", pointer: "#", message: `${what} is published in the base but missing here; published versions stay (readers still meet their payloads)` });
      continue;
    }
    compared.push(file);
    const diff = diffSchemas(parse(`${options.base}:${file}`, text), parse(file, mine));
    const broken = diff.changes.filter((c) => breaks(c, mode));
    for (const c of broken) violations.push({ file, code: c.code, pointer: c.path, message: `${c.message} (breaks ${directions(mode, c)} compatibility within the major version)` });
  }

  const versions = (files: Map<string, string>, contract: string) =>
    [...files.keys()].flatMap((n) => {
      const m = SCHEMA_FILE.exec(n);
      return m && m[1] === contract ? [Number(m[2])] : [];
    });
  for (const name of ours.keys()) {
    const ref = SCHEMA_FILE.exec(name);
    if (!ref || theirs.has(name)) continue;
    const [contract, major] = [ref[1]!, Number(ref[2])];
    const published = versions(theirs, contract);
    if (published.length === 0 || major < Math.max(...published)) continue;
    const previous = Math.max(...[...published, ...versions(ours, contract)].filter((v) => v < major));
    if (migrations.some((m) => m.contract === contract && m.from === previous && m.to === major)) continue;
    violations.push({
      file: `schemas/${name}`,
      code: "MIGRATION_MISSING",
      pointer: "#",
      message: `\`${contract}@${major}\` is a new major version with no registered migration from \`${contract}@${previous}\`; add \`{ contract: "${contract}", from: ${previous}, to: ${major}, upgrade, project? }\` to contracts/migrations.ts`,
    });
  }
  return { ok: violations.length === 0, violations, compared };
}
