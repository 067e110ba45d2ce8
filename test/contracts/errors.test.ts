import { describe, expect, it } from "vitest";
import { CONTRACT_ERRORS } from "../../contracts/errors.js";
import { assertValid, getContract } from "../../contracts/registry.js";
import { ERRORS, KeelError, isKeelError } from "../../kernel/errors.js";

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}

describe("the shared error base (contracts/errors.ts)", () => {
  it("an error the contracts raise is the kernel's KeelError, with its code", () => {
    const error = thrown(() => getContract("nope@1"));
    expect(error).toBeInstanceOf(KeelError);
    expect(isKeelError(error)).toBe(true);
    expect((error as KeelError).code).toBe("KEEL_ERR_CONTRACT_UNKNOWN");
    expect(String(error)).toMatch(/^KEEL_ERR_CONTRACT_UNKNOWN: /);
    expect(thrown(() => assertValid("status@2", { status: "nope" }))).toMatchObject({ name: "KeelError", code: "KEEL_ERR_CONTRACT_VIOLATION" });
  });

  it("the contract codes are part of the one ERRORS table (docs/errors.md), with the same text", () => {
    for (const [code, spec] of Object.entries(CONTRACT_ERRORS)) expect(ERRORS[code as keyof typeof ERRORS]).toEqual(spec);
    expect(Object.keys(CONTRACT_ERRORS).sort()).toEqual(["KEEL_ERR_CONTRACTS_NOT_A_SCHEMA", "KEEL_ERR_CONTRACT_NO_MIGRATION", "KEEL_ERR_CONTRACT_UNKNOWN", "KEEL_ERR_CONTRACT_VIOLATION"]);
  });
});
