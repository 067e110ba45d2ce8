import { existsSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { KeelError } from "../../kernel/errors.js";
import { toAuthHandler, type AuthHandler } from "../../plugins/gateway/auth-handler.js";

/**
 * `keel serve --auth FILE[:EXPORT]`: import the module and adapt its export — a LangGraph
 * `Auth` instance (`@langchain/langgraph-sdk/auth`) or `{ authenticate, authorize? }` — into
 * the gateway's auth handler. A missing file or export: `KEEL_ERR_SERVE_CONFIG`; an export
 * that is no handler: `KEEL_ERR_AUTH_HANDLER_INVALID`.
 */
export async function loadAuthModule(spec: { file: string; exportName: string }): Promise<AuthHandler> {
  if (!existsSync(spec.file)) throw new KeelError("KEEL_ERR_SERVE_CONFIG", `--auth module \`${spec.file}\` does not exist`);
  let mod: Record<string, unknown>;
  try {
    mod = (await import(pathToFileURL(spec.file).href)) as Record<string, unknown>;
  } catch (error) {
    throw new KeelError("KEEL_ERR_SERVE_CONFIG", `--auth module \`${spec.file}\` failed to load: ${(error as Error).message}`, { cause: error });
  }
  if (!(spec.exportName in mod)) throw new KeelError("KEEL_ERR_SERVE_CONFIG", `--auth module \`${spec.file}\` has no export \`${spec.exportName}\``);
  return toAuthHandler(mod[spec.exportName], `--auth module \`${spec.file}\` (export \`${spec.exportName}\`)`);
}
