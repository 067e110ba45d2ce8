import { CompositionError } from "../../../kernel/errors.js";
import { KERNEL_VERSION } from "../../../kernel/version.js";
import { resolveServeOptions } from "../../serve/serve-options.js";
import { parseSpecArgs } from "../args.js";
import { helpRequested, renderHelp } from "../command-spec.js";
import { EXIT_FAILED, EXIT_OK, failUsage, type CommandIO } from "../io.js";
import { SERVE_SPEC } from "../specs.js";
import { renderProblems } from "./compose.js";

const USAGE = SERVE_SPEC.usage;

/** `keel serve --help`: every flag and the environment a real provider reads. */
export const SERVE_HELP = renderHelp(SERVE_SPEC);

/**
 * `keel serve`: start the HTTP gateway and keep serving until SIGTERM or SIGINT, then
 * shut down gracefully (stop admitting, let runs finish up to 10 s, interrupt the rest,
 * close the store and bridge). Exit 2 for bad flags or a setup that must not start (a
 * non-loopback host without API keys, an unreachable database); exit 1 when a served
 * stack does not compose.
 */
export async function serveCommand(args: string[], io: CommandIO): Promise<number> {
  if (helpRequested(args)) {
    io.out(SERVE_HELP);
    return EXIT_OK;
  }
  let server;
  try {
    const { values, positionals } = parseSpecArgs(args, SERVE_SPEC);
    if (positionals.length > 0) return failUsage(io, false, new Error(`unexpected argument \`${positionals[0]}\`; ${USAGE}`));
    const options = resolveServeOptions(values, process.env, io.cwd);
    // Loaded here, so `--help` and usage errors answer without loading the whole server.
    const { startServer } = await import("../../serve/start-server.js");
    server = await startServer(options, { version: KERNEL_VERSION, log: (line) => io.err(line) });
  } catch (error) {
    // A served stack that does not compose is a failed check (exit 1), listed on stderr.
    if (error instanceof CompositionError) {
      io.err(renderProblems(error));
      return EXIT_FAILED;
    }
    return failUsage(io, false, error);
  }
  io.out(`Keel listening on ${server.url}`);
  await new Promise<void>((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      process.off("SIGTERM", stop);
      process.off("SIGINT", stop);
      io.err(`${signal}: shutting down`);
      server.close().then(resolve, (error: unknown) => {
        io.err(`shutdown failed: ${(error as Error)?.message ?? String(error)}`);
        resolve();
      });
    };
    process.on("SIGTERM", stop);
    process.on("SIGINT", stop);
  });
  return EXIT_OK;
}
