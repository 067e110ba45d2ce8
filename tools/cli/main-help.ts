import { COMMAND_SPECS } from "./specs.js";

/** `keel --help`: every command's usage line, then where the details are. */
export function renderMainHelp(): string {
  return [
    "usage: keel <command> [options]",
    "       keel --version | -V",
    "",
    ...COMMAND_SPECS.map((spec) => `  ${spec.usage.replace(/^usage: /, "")}`),
    "",
    "Run `keel <command> --help` for its flags, defaults, output and exit codes (also in docs/cli.md).",
    "Exit codes: 0 success, 1 the check ran and failed, 2 bad usage or bad input.",
  ].join("\n");
}
