import { checkSchemas, writeSchemas } from "../../schemas/build.js";
import { runBuildCommand } from "../build-command.js";
import type { CommandIO } from "../io.js";
import { SCHEMAS_BUILD_SPEC } from "../specs.js";

/** `keel schemas build [--check] [--json]`: write `schemas/` from `contracts/`, or report drift. */
export async function schemasCommand(args: string[], io: CommandIO): Promise<number> {
  return runBuildCommand(args, io, {
    spec: SCHEMAS_BUILD_SPEC,
    write: writeSchemas,
    wrote: (files) => `wrote ${files.length} schema files to schemas/`,
    check: checkSchemas,
    upToDate: "schemas/ is up to date",
    driftHeadline: "KEEL_ERR_SCHEMAS_DRIFT: schemas/ differs from contracts/",
    rebuild: "npx keel schemas build",
  });
}
