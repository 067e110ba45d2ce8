/** The `keel/host` entry: what a host or a service plugin builds on. */
export * from "../../kernel/runs/bridge-kit.js";
export { KeelError, isKeelError } from "../../kernel/errors.js";
