import { resolve } from "node:path";
import { KeelError } from "../../kernel/errors.js";

/** `--model`: which chat model answers the runs. */
export type ModelSpec =
  | { kind: "demo" }
  /** A scenario@1 file whose `agents` scripts answer every run, afresh per run. */
  | { kind: "scripted"; file: string }
  | ProviderModelSpec;

/** A real provider; `maxTokens` (`--max-tokens`) caps each response's output tokens. */
export interface ProviderModelSpec {
  kind: "openai" | "anthropic";
  model: string;
  maxTokens?: number;
}

/** `flag` names the option in error messages (`--model`, `--summarizer-model`). */
export function parseModelSpec(spec: string, cwd: string, flag = "--model"): ModelSpec {
  if (spec === "demo") return { kind: "demo" };
  const colon = spec.indexOf(":");
  const kind = colon < 0 ? spec : spec.slice(0, colon);
  const rest = colon < 0 ? "" : spec.slice(colon + 1).trim();
  if ((kind === "scripted" || kind === "openai" || kind === "anthropic") && rest === "") {
    throw new KeelError("KEEL_ERR_CLI_USAGE", `${flag} \`${spec}\` needs a ${kind === "scripted" ? "FILE" : "MODEL"} after \`${kind}:\``);
  }
  switch (kind) {
    case "scripted":
      return { kind, file: resolve(cwd, rest) };
    case "openai":
    case "anthropic":
      return { kind, model: rest };
    default:
      throw new KeelError("KEEL_ERR_CLI_USAGE", `${flag} \`${spec}\` is not one of demo, scripted:FILE, openai:MODEL, anthropic:MODEL`);
  }
}

/** The names a run request may use for the served model (request hygiene's allowlist). */
export function allowedModelNames(spec: ModelSpec): string[] {
  switch (spec.kind) {
    case "demo":
      return ["demo"];
    case "scripted":
      return ["scripted", `scripted:${spec.file}`];
    default:
      return [spec.model, `${spec.kind}:${spec.model}`];
  }
}

/**
 * The server's model allowlist: every model it calls — the served model and, when set,
 * the summary model (so a summary model is always one the server lists).
 */
export function serverModelAllowlist(model: ModelSpec, summarizer: ModelSpec | undefined): string[] {
  return [...new Set([...allowedModelNames(model), ...(summarizer ? allowedModelNames(summarizer) : [])])];
}
