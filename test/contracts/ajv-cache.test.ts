import { describe, expect, it } from "vitest";
import { compileSchema, validateAgainst } from "../../contracts/ajv.js";

const copy = () => ({ type: "object", properties: { limit: { type: "number", default: 7 } }, additionalProperties: false });

describe("compileSchema cache", () => {
  it("compiles copies of one schema once (same JSON text, distinct objects)", () => {
    const [a, b] = [copy(), copy()];
    expect(a).not.toBe(b);
    expect(compileSchema(b)).toBe(compileSchema(a));
    expect(compileSchema(b, { applyDefaults: true })).toBe(compileSchema(a, { applyDefaults: true }));
  });

  it("keeps validators apart for different schemas and for the two instances (defaults applied or not)", () => {
    const other = { ...copy(), required: ["limit"] };
    expect(compileSchema(other)).not.toBe(compileSchema(copy()));
    expect(compileSchema(copy(), { applyDefaults: true })).not.toBe(compileSchema(copy()));
    const value: Record<string, unknown> = {};
    expect(validateAgainst(copy(), value, { applyDefaults: true }).valid).toBe(true);
    expect(value).toEqual({ limit: 7 });
    const untouched: Record<string, unknown> = {};
    expect(validateAgainst(copy(), untouched).valid).toBe(true);
    expect(untouched).toEqual({});
    expect(validateAgainst(other, {}).valid).toBe(false);
  });
});
