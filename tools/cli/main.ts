import { KeelError } from "../../kernel/errors.js";
import { KERNEL_VERSION } from "../../kernel/version.js";
import { EXIT_OK, EXIT_USAGE, failUsage, printJson, processIO, type CommandIO } from "./io.js";
import { renderMainHelp } from "./main-help.js";

type Command = (args: string[], io: CommandIO) => Promise<number>;

/** Each command lives in its own module, loaded on demand so `keel --help` stays fast. */
const COMMANDS: Record<string, () => Promise<Command>> = {
  compose: async () => (await import("./commands/compose.js")).composeCommand,
  run: async () => (await import("./commands/run.js")).runCommand,
  replay: async () => (await import("./commands/replay.js")).replayCommand,
  watch: async () => (await import("./commands/watch.js")).watchCommand,
  schemas: async () => (await import("./commands/schemas.js")).schemasCommand,
  docs: async () => (await import("./commands/docs.js")).docsCommand,
  validate: async () => (await import("./commands/validate.js")).validateCommand,
  plugin: async () => (await import("./commands/plugin.js")).pluginCommand,
  contracts: async () => (await import("./commands/contracts.js")).contractsCommand,
  serve: async () => (await import("./commands/serve.js")).serveCommand,
};

export const COMMAND_NAMES: readonly string[] = Object.keys(COMMANDS);

export async function main(argv: string[], io: CommandIO = processIO): Promise<number> {
  const [name, ...rest] = argv;
  const json = argv.includes("--json");
  if (name === "help" && rest[0] !== undefined) {
    // `keel help COMMAND` is `keel COMMAND --help`.
    if (COMMANDS[rest[0]] !== undefined) return (await COMMANDS[rest[0]]!())([...rest.slice(1), "--help"], io);
    return failUsage(io, json, unknownCommand(rest[0]));
  }
  if (name === "--help" || name === "-h" || name === "help") {
    io.out(renderMainHelp());
    return EXIT_OK;
  }
  if (name === undefined || (name === "--json" && rest.length === 0)) {
    // No command: bad usage, said on stderr (and as the JSON document under `--json`); the help on stdout otherwise.
    if (!json) io.out(renderMainHelp());
    return failUsage(io, json, new KeelError("KEEL_ERR_CLI_USAGE", `no command given; the commands are ${COMMAND_NAMES.join(", ")}; run \`keel --help\``));
  }
  if (name === "--version" || name === "-V") {
    if (json) printJson(io, { version: KERNEL_VERSION });
    else io.out(KERNEL_VERSION);
    return EXIT_OK;
  }
  const load = COMMANDS[name];
  if (!load) {
    const error = name.startsWith("-") ? new KeelError("KEEL_ERR_CLI_USAGE", `unknown option \`${name}\` before the command; run \`keel --help\``) : unknownCommand(name);
    return failUsage(io, json, error);
  }
  return (await load())(rest, io);
}

function unknownCommand(name: string): KeelError {
  return new KeelError("KEEL_ERR_CLI_USAGE", `unknown command \`${name}\`; the commands are ${COMMAND_NAMES.join(", ")}; run \`keel --help\``);
}
