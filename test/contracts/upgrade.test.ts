import { describe, expect, it } from "vitest";
import { MIGRATIONS, contracts, latestVersion, project, upgrade, validate, type StatusV1, type StatusV2 } from "../../contracts/index.js";
import { KeelError } from "../../kernel/errors.js";

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return (error as KeelError).code;
  }
  return undefined;
}

describe("upgrade / project through MIGRATIONS", () => {
  it("registers status 1 → 2 with both directions", () => {
    const step = MIGRATIONS.find((m) => m.contract === "status" && m.from === 1);
    expect(step).toMatchObject({ contract: "status", from: 1, to: 2 });
    expect(typeof step!.upgrade).toBe("function");
    expect(typeof step!.project).toBe("function");
  });

  it("has a migration for every published major version after the first", () => {
    for (const def of contracts.filter((c) => c.version > 1)) {
      expect(MIGRATIONS.some((m) => m.contract === def.name && m.to === def.version), `${def.name}@${def.version}`).toBe(true);
    }
  });

  it("upgrades status@1 to the newest version by default", () => {
    expect(latestVersion("status")).toBe(2);
    const read = upgrade<StatusV2>("status@1", { status: "max_turns_reached", resultBrief: "Most." });
    expect(read).toEqual({
      contract: "status",
      version: 2,
      status: "partial",
      stopReasons: [{ reason: "turn_capped", by: "legacy" }],
      primaryStopReason: "turn_capped",
      text: "Most.",
    });
    expect(validate("status@2", read).valid).toBe(true);
  });

  it("accepts { name, version } and an explicit target", () => {
    expect(upgrade({ name: "status", version: 1 }, { status: "cancelled" }, 2)).toMatchObject({ status: "cancelled", version: 2 });
  });

  it("is the identity (validated) when the payload is already the target version", () => {
    const outcome: StatusV2 = { contract: "status", version: 2, status: "succeeded", stopReasons: [], text: "ok" };
    expect(upgrade("status@2", outcome)).toEqual(outcome);
  });

  it("reads tolerantly: properties from a newer revision of status@1 are dropped", () => {
    expect(upgrade("status@1", { status: "completed", resultBrief: "Done.", confidence: 0.9 })).toEqual({
      contract: "status",
      version: 2,
      status: "succeeded",
      stopReasons: [],
      text: "Done.",
    });
  });

  it("fails closed on an invalid input", () => {
    expect(codeOf(() => upgrade("status@1", { status: "succeeded" }))).toBe("KEEL_ERR_CONTRACT_VIOLATION");
  });

  it("projects status@2 down to status@1", () => {
    const outcome: StatusV2 = {
      contract: "status",
      version: 2,
      status: "partial",
      stopReasons: [{ reason: "token_capped", by: "token-budget" }],
      text: "Half.",
    };
    expect(project<StatusV1>("status@2", outcome, 1)).toEqual({ status: "completed", stopReason: "token_capped", resultBrief: "Half." });
  });

  it("reports unknown contracts, unknown targets and wrong directions with codes", () => {
    expect(codeOf(() => upgrade("nope@1", {}))).toBe("KEEL_ERR_CONTRACT_UNKNOWN");
    expect(codeOf(() => upgrade("status@1", { status: "completed" }, 3))).toBe("KEEL_ERR_CONTRACT_UNKNOWN");
    expect(codeOf(() => upgrade("status@2", { contract: "status", version: 2, status: "failed", stopReasons: [], text: "" }, 1))).toBe(
      "KEEL_ERR_CONTRACT_NO_MIGRATION",
    );
    expect(codeOf(() => project("status@1", { status: "completed" }, 2))).toBe("KEEL_ERR_CONTRACT_NO_MIGRATION");
  });
});
