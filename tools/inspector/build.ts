import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { packageRoot } from "../../kernel/package-root.js";

/**
 * The run inspector's bundle: `inspector/main.tsx` (Preact) → `plugins/gateway/inspector/app.js`
 * and `app.css`, committed so that a packed install serves the page without a build.
 * esbuild's output is deterministic for one esbuild version and one source tree, so
 * `--check` rebuilds in memory and fails when a committed file differs.
 *
 * Usage: `npm run inspector:build` (`node dist/tools/inspector/build.js [--check]`).
 */
export interface InspectorBuildResult {
  /** The bundle's files, relative to the package root. */
  files: string[];
  /** With `check`: the files whose committed content differs from a fresh build. */
  drifted: string[];
}

export const INSPECTOR_SOURCE = "inspector/main.tsx";
export const INSPECTOR_OUT_DIR = "plugins/gateway/inspector";

export async function buildInspector(options: { check?: boolean; root?: string } = {}): Promise<InspectorBuildResult> {
  const root = options.root ?? packageRoot();
  // esbuild is a development dependency: only this build (never the server) loads it.
  const esbuild = await import("esbuild");
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: { app: INSPECTOR_SOURCE },
    outdir: INSPECTOR_OUT_DIR,
    bundle: true,
    minify: true,
    format: "esm",
    target: ["es2020", "chrome100", "firefox100", "safari15"],
    jsx: "automatic",
    jsxImportSource: "preact",
    legalComments: "none",
    charset: "utf8",
    write: false,
    logLevel: "silent",
  });
  const files: string[] = [];
  const drifted: string[] = [];
  for (const output of result.outputFiles) {
    const path = relative(root, output.path);
    files.push(path);
    if (options.check) {
      let committed: string | undefined;
      try {
        committed = readFileSync(join(root, path), "utf8");
      } catch {
        committed = undefined;
      }
      if (committed !== output.text) drifted.push(path);
      continue;
    }
    mkdirSync(dirname(output.path), { recursive: true });
    writeFileSync(output.path, output.text);
  }
  return { files: files.sort(), drifted: drifted.sort() };
}

async function main(argv: readonly string[]): Promise<number> {
  const check = argv.includes("--check");
  const unknown = argv.filter((arg) => arg !== "--check");
  if (unknown.length > 0) {
    process.stderr.write(`usage: node dist/tools/inspector/build.js [--check] (unknown: ${unknown.join(" ")})\n`);
    return 2;
  }
  const { files, drifted } = await buildInspector({ check });
  if (!check) {
    process.stdout.write(`wrote ${files.join(", ")}\n`);
    return 0;
  }
  if (drifted.length === 0) {
    process.stdout.write(`the inspector bundle is up to date (${files.join(", ")})\n`);
    return 0;
  }
  process.stderr.write(`the committed inspector bundle differs from its sources: ${drifted.join(", ")}; run \`npm run inspector:build\` and commit the result\n`);
  return 1;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`inspector build failed: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}
