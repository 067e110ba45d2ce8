import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { isPlainObject, isRecord } from "../../contracts/plain-object.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith(".ts"))
    .map((e) => relative(ROOT, join(e.parentPath, e.name)));
}

describe("one object check for every layer (contracts/plain-object.ts)", () => {
  it("isRecord: any non-array object, class instances included", () => {
    class Message {
      content = "hi";
    }
    expect([{}, { a: 1 }, Object.create(null), new Message(), new Date()].map(isRecord)).toEqual([true, true, true, true, true]);
    expect([null, undefined, [], [1], "x", 1, true].map(isRecord)).toEqual([false, false, false, false, false, false, false]);
  });

  it("isPlainObject: data objects only; a class instance is not copied or frozen as data", () => {
    class Plugin {
      name = "p";
    }
    expect([{}, { a: { b: 1 } }, Object.create(null)].map(isPlainObject)).toEqual([true, true, true]);
    expect([new Plugin(), new Date(), new Map(), [], null, "x"].map(isPlainObject)).toEqual([false, false, false, false, false, false]);
  });

  it("no other module of the product defines its own copy", () => {
    const copy = /function (isPlainObject|isRecord|isObject)\b|const (isPlainObject|isRecord|isObject) = \(value: unknown\)[^=]*=> typeof/;
    const found = ["contracts", "kernel", "plugins", "tools"].flatMap(sources).filter((file) => copy.test(readFileSync(join(ROOT, file), "utf8")));
    expect(found).toEqual(["contracts/plain-object.ts"]);
  });
});
