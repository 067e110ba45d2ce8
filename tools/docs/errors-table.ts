import { ERRORS } from "../../kernel/errors.js";
import type { Plugin } from "../../kernel/plugin/types.js";
import { BUILTIN_PLUGINS } from "../../plugins/builtins.js";

function cell(text: string): string {
  return text.replace(/\r?\n/g, " ").replace(/\|/g, "\\|");
}

/**
 * `docs/errors.md`: one row per code of `ERRORS`, in table order, then the codes the
 * built-in plugins register in their manifests' `errors` (`PLUGIN_<NAME>_…`), by plugin.
 */
export function renderErrorsTable(plugins: readonly Plugin[] = BUILTIN_PLUGINS): string {
  const rows = Object.entries(ERRORS).map(([code, spec]) => `| \`${code}\` | ${cell(spec.description)} | ${cell(spec.solve)} |`);
  const pluginRows = plugins.flatMap((plugin) =>
    Object.entries(plugin.manifest.errors ?? {}).map(([code, spec]) => `| \`${code}\` | \`${plugin.manifest.name}\` | ${cell(spec.description)} | ${cell(spec.solve)} |`),
  );
  return [
    "# Error codes",
    "",
    "Every error Keel raises carries one of these stable codes (generated from `kernel/errors.ts` by `keel docs build`; do not edit by hand).",
    "",
    "| Code | Description | How to solve |",
    "|---|---|---|",
    ...rows,
    "",
    "## Plugin error codes",
    "",
    "A plugin registers its own codes in its manifest: `errors: { \"PLUGIN_<NAME>_<PROBLEM>\": { description, solve } }`, NAME being the plugin's name in upper case with `-` as `_` (the manifest audit rejects any other prefix). A hook that throws an error whose `code` is one of them fails the run with `KEEL_ERR_PLUGIN_FAILED`, keeping the code as `pluginCode` and adding its `solve` line to the message. The built-in plugins' codes:",
    "",
    ...(pluginRows.length === 0
      ? ["No built-in plugin registers codes of its own."]
      : ["| Code | Plugin | Description | How to solve |", "|---|---|---|---|", ...pluginRows]),
    "",
  ].join("\n");
}
