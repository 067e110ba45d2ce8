import { packageRoot } from "../../kernel/package-root.js";
import { parseSpecArgs, subcommandError, wantsJson } from "./args.js";
import { helpRequested, renderHelp, type CommandSpec } from "./command-spec.js";
import { EXIT_FAILED, EXIT_OK, failUsage, printJson, type CommandIO } from "./io.js";

/** A generated artifact set: how to write it and how to find where the committed copy drifted. */
export interface GeneratedArtifacts {
  /** `schemas build` / `docs build`: flags, usage and help. */
  spec: CommandSpec & { readonly flags: { readonly check: object; readonly json: object } };
  /** Write every file; returns their paths. */
  write(root: string): string[];
  /** The text line after writing, e.g. `wrote 12 schema files to schemas/`. */
  wrote(files: readonly string[]): string;
  check(root: string): Array<{ path: string; problem: string }>;
  upToDate: string;
  /** First line of the drift report, e.g. `KEEL_ERR_SCHEMAS_DRIFT: schemas/ differs from contracts/`. */
  driftHeadline: string;
  rebuild: string;
}

/**
 * `<command> build [--check] [--json]`: write the artifacts, or exit 1 listing every drifted file.
 * `--json`: `{ ok, check, files }`, files written (paths) or, with `--check`, drifted (`{ path, problem }`).
 */
export async function runBuildCommand(args: string[], io: CommandIO, artifacts: GeneratedArtifacts): Promise<number> {
  const { spec } = artifacts;
  if (helpRequested(args)) return (io.out(renderHelp(spec)), EXIT_OK);
  const json = wantsJson(args);
  let check: boolean;
  try {
    const { values, positionals } = parseSpecArgs(args, spec);
    if (positionals.length !== 1 || positionals[0] !== "build") throw subcommandError(spec.name.split(" ")[0]!, positionals.length === 0 ? undefined : positionals.join(" "), ["build"], spec.usage);
    check = values.check === true;
  } catch (error) {
    return failUsage(io, json, error);
  }
  const root = packageRoot();
  if (!check) {
    const files = artifacts.write(root);
    if (json) printJson(io, { ok: true, check: false, files });
    else io.out(artifacts.wrote(files));
    return EXIT_OK;
  }
  const drift = artifacts.check(root);
  if (json) printJson(io, { ok: drift.length === 0, check: true, files: drift });
  if (drift.length === 0) {
    if (!json) io.out(artifacts.upToDate);
    return EXIT_OK;
  }
  io.err(
    [
      `${artifacts.driftHeadline} (${drift.length} file${drift.length === 1 ? "" : "s"}):`,
      ...drift.map((d) => `  ${d.problem}: ${d.path}`),
      `run \`${artifacts.rebuild}\` and commit the result`,
    ].join("\n"),
  );
  return EXIT_FAILED;
}
