import { packageRoot } from "../../kernel/package-root.js";
import { parseBuildArgs } from "./args.js";
import { EXIT_FAILED, EXIT_OK, failUsage, type CommandIO } from "./io.js";

/** A generated artifact set: how to write it and how to find where the committed copy drifted. */
export interface GeneratedArtifacts {
  usage: string;
  write(root: string): string;
  check(root: string): Array<{ path: string; problem: string }>;
  upToDate: string;
  /** First line of the drift report, e.g. `KEEL_ERR_SCHEMAS_DRIFT: schemas/ differs from contracts/`. */
  driftHeadline: string;
  rebuild: string;
}

/** `<command> build [--check]`: write the artifacts, or exit 1 listing every drifted file. */
export async function runBuildCommand(args: string[], io: CommandIO, artifacts: GeneratedArtifacts): Promise<number> {
  let check: boolean;
  try {
    ({ check } = parseBuildArgs(args, artifacts.usage));
  } catch (error) {
    return failUsage(io, false, error);
  }
  const root = packageRoot();
  if (!check) {
    io.out(artifacts.write(root));
    return EXIT_OK;
  }
  const drift = artifacts.check(root);
  if (drift.length === 0) {
    io.out(artifacts.upToDate);
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
