import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, describe, expect, it } from "vitest";
import { contracts } from "../../contracts/index.js";
import { packageRoot } from "../../kernel/package-root.js";
import { buildSchemas, checkSchemas, writeSchemas } from "../../tools/schemas/build.js";

const root = packageRoot();
const files = readdirSync(join(root, "schemas")).filter((f) => f.endsWith(".schema.json"));
const temps: string[] = [];

afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

function tempCopy(): string {
  const dir = mkdtempSync(join(tmpdir(), "keel-schemas-"));
  temps.push(dir);
  cpSync(join(root, "schemas"), join(dir, "schemas"), { recursive: true });
  return dir;
}

describe("schemas/", () => {
  it("holds one file per registered contract", () => {
    expect(files.sort()).toEqual(contracts.map((c) => `${c.name}.v${c.version}.schema.json`).sort());
  });

  it.each(files)("%s has its $id, the 2020-12 dialect, and compiles with AJV 2020", (file) => {
    const [, name, version] = /^(.+)\.v(\d+)\.schema\.json$/.exec(file)!;
    const schema = JSON.parse(readFileSync(join(root, "schemas", file), "utf8")) as Record<string, unknown>;
    expect(schema.$id).toBe(`keel:schemas/${name}/v${version}`);
    expect(schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, validateFormats: false });
    expect(typeof ajv.compile(schema)).toBe("function");
  });

  it("carries the payload's version const where the payload has one", () => {
    for (const [name, version] of [["status", 2], ["scenario", 1], ["run-report", 1]] as const) {
      const schema = JSON.parse(readFileSync(join(root, "schemas", `${name}.v${version}.schema.json`), "utf8"));
      expect(schema.properties.contract.const).toBe(name);
      expect(schema.properties.version.const).toBe(version);
    }
  });
});

describe("schemas drift check", () => {
  it("the committed files equal what contracts/ generates", () => {
    const built = buildSchemas(root);
    for (const [path, text] of built) expect(readFileSync(join(root, path), "utf8"), path).toBe(text);
    expect(checkSchemas(root)).toEqual([]);
  });

  it("reports drifted, missing and extra files, and writeSchemas repairs them", () => {
    const dir = tempCopy();
    const status = join(dir, "schemas", "status.v2.schema.json");
    writeFileSync(status, readFileSync(status, "utf8").replace('"minLength": 1', '"minLength": 2'));
    rmSync(join(dir, "schemas", "scenario.v1.schema.json"));
    writeFileSync(join(dir, "schemas", "old.v1.schema.json"), "{}\n");

    const byPath = (a: { path: string }, b: { path: string }) => a.path.localeCompare(b.path);
    expect(checkSchemas(dir).sort(byPath)).toEqual([
      { path: "schemas/old.v1.schema.json", problem: "extra" },
      { path: "schemas/scenario.v1.schema.json", problem: "missing" },
      { path: "schemas/status.v2.schema.json", problem: "drifted" },
    ]);

    writeSchemas(dir);
    expect(checkSchemas(dir)).toEqual([]);
  });
});
