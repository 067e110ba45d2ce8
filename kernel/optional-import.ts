/**
 * Importing an optional peer dependency at the point of use. Keel's core runs without the
 * model providers, the PostgreSQL drivers and ioredis; the feature that needs one imports
 * it here, and a missing package becomes an error that names what to install.
 */
import { createRequire } from "node:module";
import { KeelError } from "./errors.js";

const requireFromKeel = createRequire(import.meta.url);

/**
 * Runs `load` (a literal `() => import("pkg")`, so the module keeps its types) and turns
 * "package not found" into `KEEL_ERR_OPTIONAL_DEPENDENCY_MISSING`. Any other failure
 * (the package is there but broken) is rethrown as is. `install` is what the message tells
 * to install (default: the package itself; several when the feature needs them together).
 *
 * @example
 * const { ChatOpenAI } = await importOptional("@langchain/openai", "--model openai:…", () => import("@langchain/openai"));
 */
export async function importOptional<T>(packageName: string, neededFor: string, load: () => Promise<T>, install: string = packageName): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (!isPackageNotFound(error, packageName)) throw error;
    throw missing(packageName, neededFor, install, error);
  }
}

/**
 * The same for a CommonJS package needed synchronously (e.g. inside a constructor):
 * `require`d from Keel's own location, so a package installed beside keel is found.
 *
 * @example
 * const { Redis } = requireOptional<typeof import("ioredis")>("ioredis", "--redis");
 */
export function requireOptional<T>(packageName: string, neededFor: string, install: string = packageName): T {
  try {
    return requireFromKeel(packageName) as T;
  } catch (error) {
    if (!isPackageNotFound(error, packageName)) throw error;
    throw missing(packageName, neededFor, install, error);
  }
}

function missing(packageName: string, neededFor: string, install: string, cause: unknown): KeelError {
  return new KeelError(
    "KEEL_ERR_OPTIONAL_DEPENDENCY_MISSING",
    `${neededFor} needs the optional package \`${packageName}\`, which is not installed: run \`npm install ${install}\``,
    { cause },
  );
}

/** Node's resolution failure for this package (ESM `ERR_MODULE_NOT_FOUND`, CJS `MODULE_NOT_FOUND`). */
function isPackageNotFound(error: unknown, packageName: string): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as NodeJS.ErrnoException).code;
  if (code !== "ERR_MODULE_NOT_FOUND" && code !== "MODULE_NOT_FOUND") return false;
  return error.message.includes(`'${packageName}'`) || error.message.includes(`"${packageName}"`);
}
