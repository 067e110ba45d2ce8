import { KeelError } from "../../kernel/errors.js";
import { EXIT_USAGE, failUsage, processIO, type CommandIO } from "./io.js";

type Command = (args: string[], io: CommandIO) => Promise<number>;

/** Each command lives in its own module, loaded on demand so `keel --help` stays fast. */
const COMMANDS: Record<string, { summary: string; load: () => Promise<Command> }> = {
  compose: { summary: "compose [STACK] [--plugin FILE]... [--json]", load: async () => (await import("./commands/compose.js")).composeCommand },
  run: { summary: "run SCENARIO [--stack STACK] [--plugin FILE]... [--fail-on partial|failed] [--json] [--report-version 1|2]", load: async () => (await import("./commands/run.js")).runCommand },
  schemas: { summary: "schemas build [--check]", load: async () => (await import("./commands/schemas.js")).schemasCommand },
  docs: { summary: "docs build [--check]", load: async () => (await import("./commands/docs.js")).docsCommand },
  validate: { summary: "validate CONTRACT@VERSION FILE [--json]", load: async () => (await import("./commands/validate.js")).validateCommand },
  plugin: { summary: "plugin check MODULE [--stack STACK] [--json]", load: async () => (await import("./commands/plugin.js")).pluginCommand },
  contracts: { summary: "contracts diff OLD NEW | check --base DIR_OR_GIT_REF [--mode backward|forward|full] [--json]", load: async () => (await import("./commands/contracts.js")).contractsCommand },
  serve: { summary: "serve [--port 8787] [--host 127.0.0.1] [--db URL] [--redis URL] [--stack NAME] [--model SPEC] [--bash off|on] [--max-turns 500] [--max-tokens N] [--summarizer-model SPEC] [--plugin FILE]...", load: async () => (await import("./commands/serve.js")).serveCommand },
};

export async function main(argv: string[], io: CommandIO = processIO): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    io.out(["usage: keel <command> [options]", "", ...Object.values(COMMANDS).map((c) => `  keel ${c.summary}`)].join("\n"));
    return name === undefined ? EXIT_USAGE : 0;
  }
  const command = COMMANDS[name];
  if (!command) {
    return failUsage(io, rest.includes("--json"), new KeelError("KEEL_ERR_CLI_USAGE", `unknown command \`${name}\`; run \`keel --help\``));
  }
  return (await command.load())(rest, io);
}
