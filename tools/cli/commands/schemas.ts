import { checkSchemas, writeSchemas } from "../../schemas/build.js";
import { runBuildCommand } from "../build-command.js";
import type { CommandIO } from "../io.js";

/** `keel schemas build [--check]`: write `schemas/` from `contracts/`, or report drift. */
export async function schemasCommand(args: string[], io: CommandIO): Promise<number> {
  return runBuildCommand(args, io, {
    usage: "usage: keel schemas build [--check]",
    write: (root) => `wrote ${writeSchemas(root).length} schema files to schemas/`,
    check: checkSchemas,
    upToDate: "schemas/ is up to date",
    driftHeadline: "KEEL_ERR_SCHEMAS_DRIFT: schemas/ differs from contracts/",
    rebuild: "npx keel schemas build",
  });
}
