/** Type-checking documentation code blocks: write them as files and run the checkout's tsc over them (strict). */
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { packageRoot } from "../../kernel/package-root.js";

/** tsc's complaints about `files` (already written under `dir`), or "" when they type-check. */
export function typecheckFiles(dir: string, files: readonly string[]): string {
  const compilerOptions = { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", lib: ["ES2023"], types: ["node"], strict: true, noEmit: true, skipLibCheck: true };
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions, files }));
  try {
    execFileSync(process.execPath, [join(packageRoot(), "node_modules", "typescript", "bin", "tsc"), "-p", join(dir, "tsconfig.json")], { encoding: "utf8", cwd: dir });
    return "";
  } catch (error) {
    return `${(error as { stdout?: string }).stdout ?? ""}${(error as Error).message}`;
  }
}
