import { existsSync, lstatSync, mkdirSync, symlinkSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** Fixture packages that import `keel` by name, as a package installed beside keel would. */
export const FIXTURE_PACKAGES = ["test/fixtures/third-party-plugin"];

/**
 * Vitest global setup: give each fixture package a `node_modules/keel` link to this
 * repository (what `npm install` of the local package would make), so its modules and its own
 * suite resolve `keel` and `keel/testing` to the built package (`dist/`, built by `npm test`).
 */
export default function linkFixturePackages(): void {
  for (const pkg of FIXTURE_PACKAGES) {
    const link = join(ROOT, pkg, "node_modules", "keel");
    if (existsSync(link) || isDanglingLink(link)) continue;
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(relative(dirname(link), ROOT) || ".", link, "dir");
  }
}

function isDanglingLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}
