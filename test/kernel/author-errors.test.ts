import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { validateAgainst } from "../../contracts/ajv.js";
import { validate } from "../../contracts/registry.js";
import { ERRORS, isKeelError } from "../../kernel/errors.js";
import { blame } from "../../kernel/loop/hook-runner.js";
import { packageRoot } from "../../kernel/package-root.js";
import { definePlugin } from "../../kernel/plugin/define-plugin.js";
import type { Manifest } from "../../kernel/plugin/types.js";
import { validateManifest } from "../../kernel/plugin/validate-manifest.js";
import { renderErrorsTable } from "../../tools/docs/errors-table.js";
import { runScenario } from "../../tools/scenario/run-scenario.js";

const manifest: Manifest = {
  name: "meter",
  version: "1.0.0",
  kind: "middleware",
  kernel: ">=0.1.0",
  description: "Meters tool calls",
  hooks: { wrapToolCall: {}, wrapModelCall: {} },
  config: { type: "object", additionalProperties: false },
  errors: { PLUGIN_METER_QUOTA: { description: "The meter's quota is used up.", solve: "Raise the quota in the meter's config." } },
};
const scenario = (name: string) => ({
  contract: "scenario" as const,
  version: 1 as const,
  name,
  stack: { name: "t", plugins: ["workspace"] },
  input: "go",
  agents: { lead: { turns: [{ content: "", toolCalls: [{ name: "ls", args: {} }] }, { content: "done" }] } },
});

describe("AJV union noise is collapsed into one message listing the allowed values", () => {
  it("a misspelt `kind` is one problem naming both kinds", () => {
    const problems = validateManifest({ manifest: { ...manifest, kind: "midleware" } as unknown as Manifest, hooks: {} });
    expect(problems).toEqual([
      {
        code: "KEEL_ERR_MANIFEST_INVALID",
        message: 'manifest of `meter` is invalid at `/kind`: must be one of `"middleware"`, `"service"`',
        pointer: "/kind",
        fix: "fix the field named by the pointer (manifest@1: schemas/manifest.v1.schema.json)",
      },
    ]);
  });

  it("a nested union (a reducer name or an object) lists the names and says an object is allowed too", () => {
    const channels = { c: { schema: {}, reducer: "apend" } };
    expect(validateAgainst({ type: "object" }, {}).errors).toEqual([]);
    const issues = validate("manifest@1", { ...manifest, channels }).errors;
    expect(issues).toEqual([{ pointer: "/channels/c/reducer", message: 'must be one of `"replace"`, `"append"`, `"append-set"`, `"sum"`, or an object' }]);
  });

  it("a branch meant for the value keeps its own, precise message", () => {
    const issues = validate("manifest@1", { ...manifest, requiresBefore: [{ name: "x" }] }).errors;
    expect(issues).toEqual([{ pointer: "/requiresBefore/0/optional", message: "missing required property `optional`" }]);
  });
});

describe("wrap hooks: next() and the return type", () => {
  it("`next()` without a request runs the current request", async () => {
    const calls: string[] = [];
    const plugin = definePlugin({
      manifest: { ...manifest, hooks: { wrapToolCall: {} } },
      hooks: {
        wrapToolCall: async (request, next) => {
          calls.push(request.toolCall.name);
          return next(undefined as never);
        },
      },
    });
    const report = await runScenario(scenario("next-default"), { plugins: [plugin] });
    expect(report.outcome.status).toBe("succeeded");
    expect(report.outcome.text).toBe("done");
    expect(calls).toEqual(["ls"]);
  });

  it.each([
    ["wrapToolCall", "a string", async () => "not a message"],
    ["wrapModelCall", "an object (ToolMessage)", async () => new ToolMessage({ content: "x", tool_call_id: "t" })],
    ["wrapToolCall", "undefined", async () => undefined],
  ] as const)("%s returning %s fails naming plugin and hook", async (hook, got, fn) => {
    const plugin = definePlugin({ manifest: { ...manifest, hooks: { [hook]: {} } }, hooks: { [hook]: fn } as never });
    const report = await runScenario(scenario(`return-${hook}-${got}`), { plugins: [plugin] });
    expect(report.outcome.status).toBe("failed");
    expect(report.outcome.error).toMatchObject({ type: "KEEL_ERR_HOOK_RETURN_TYPE" });
    expect(report.outcome.error!.message).toContain(`plugin \`meter\` returned ${got} from ${hook}; a ${hook} hook must return`);
  });
});

describe("a plugin's own error code is kept as pluginCode", () => {
  it("blame keeps the code, puts it first in the message and adds the registered fix", () => {
    const thrown = Object.assign(new Error("quota gone"), { code: "PLUGIN_METER_QUOTA" });
    const error = blame(thrown, "meter", "wrapToolCall", manifest.errors);
    expect(isKeelError(error)).toBe(true);
    expect(error).toMatchObject({
      code: "KEEL_ERR_PLUGIN_FAILED",
      pluginCode: "PLUGIN_METER_QUOTA",
      plugin: "meter",
      hook: "wrapToolCall",
      message: "plugin `meter` failed in wrapToolCall: PLUGIN_METER_QUOTA: quota gone; Raise the quota in the meter's config.",
      cause: thrown,
    });
    expect((blame(new Error("plain"), "meter", "afterModel") as { pluginCode?: string }).pluginCode).toBeUndefined();
  });

  it("a run whose hook throws it ends failed with the code in the message", async () => {
    const plugin = definePlugin({
      manifest: { ...manifest, hooks: { wrapToolCall: {} } },
      hooks: {
        wrapToolCall: async () => {
          throw Object.assign(new Error("quota gone"), { code: "PLUGIN_METER_QUOTA" });
        },
      },
    });
    const report = await runScenario(scenario("plugin-code"), { plugins: [plugin] });
    expect(report.outcome.error).toMatchObject({ type: "KEEL_ERR_PLUGIN_FAILED" });
    expect(report.outcome.error!.message).toContain("PLUGIN_METER_QUOTA: quota gone; Raise the quota");
  });

  it("registered codes are listed in the generated errors table", () => {
    const table = renderErrorsTable([{ manifest, hooks: {} }]);
    expect(table).toContain("| `PLUGIN_METER_QUOTA` | `meter` | The meter's quota is used up. | Raise the quota in the meter's config. |");
    expect(renderErrorsTable([])).toContain("No built-in plugin registers codes of its own.");
  });
});

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) return name === "node_modules" ? [] : sources(full);
    return name.endsWith(".ts") ? [full] : [];
  });
}

describe("no message cites a document that is not in the package", () => {
  const root = packageRoot();
  const shipped = (doc: string) => doc === "README.md" || (doc.startsWith("docs/") && existsSync(join(root, doc)));

  it("every document the errors table names is shipped (docs/ or README.md)", () => {
    const cited = Object.values(ERRORS).flatMap((spec) => [...`${spec.description} ${spec.solve}`.matchAll(/[\w./-]+\.md\b/g)].map((m) => m[0]));
    expect(cited.filter((doc) => !shipped(doc))).toEqual([]);
  });

  it("no string in the product (code outside comments) names a design note", () => {
    const hits: string[] = [];
    for (const dir of ["kernel", "plugins", "contracts", "tools"]) {
      for (const file of sources(join(root, dir))) {
        readFileSync(file, "utf8")
          .split("\n")
          .forEach((line, i) => {
            const code = line.trim();
            if (code.startsWith("//") || code.startsWith("*") || code.startsWith("/*")) return;
            if (/(INTERFACES|CONTRACTS|ARCHITECTURE|STYLE|PLUGINS)\.md/.test(code.replace(/\/\/.*$/, ""))) hits.push(`${relative(root, file)}:${i + 1}`);
          });
      }
    }
    expect(hits).toEqual([]);
  });
});
