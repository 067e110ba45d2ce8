import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The directory holding Keel's package.json. Found by walking up, because code runs
 * both from sources (vitest, tsx) and from `dist/` (one level deeper).
 */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, "package.json");
    if (existsSync(candidate) && (JSON.parse(readFileSync(candidate, "utf8")) as { name?: string }).name === "keel") return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error("Keel's package.json was not found above " + fileURLToPath(import.meta.url));
    dir = parent;
  }
}
