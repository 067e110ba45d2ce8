import { packageRoot } from "../../../kernel/package-root.js";
import { checkSchemas, writeSchemas } from "../../schemas/build.js";
import { parseBuildArgs } from "../args.js";
import { EXIT_FAILED, EXIT_OK, failUsage, type CommandIO } from "../io.js";

const USAGE = "usage: keel schemas build [--check]";

/** `keel schemas build [--check]`: write `schemas/` from `contracts/`, or report drift. */
export async function schemasCommand(args: string[], io: CommandIO): Promise<number> {
  let check: boolean;
  try {
    ({ check } = parseBuildArgs(args, USAGE));
  } catch (error) {
    return failUsage(io, false, error);
  }

  const root = packageRoot();
  if (!check) {
    const written = writeSchemas(root);
    io.out(`wrote ${written.length} schema files to schemas/`);
    return EXIT_OK;
  }
  const drift = checkSchemas(root);
  if (drift.length === 0) {
    io.out("schemas/ is up to date");
    return EXIT_OK;
  }
  io.err(
    [
      `KEEL_ERR_SCHEMAS_DRIFT: schemas/ differs from contracts/ (${drift.length} file${drift.length === 1 ? "" : "s"}):`,
      ...drift.map((d) => `  ${d.problem}: ${d.path}`),
      "run `npx keel schemas build` and commit the result",
    ].join("\n"),
  );
  return EXIT_FAILED;
}
