import Type, { type Static } from "typebox";
import { defineContract } from "../define.js";

/**
 * One criterion and what the deterministic check found. `family` is an open set
 * (`file`, `file_written`, `tests_passed`, `json_valid`, `undecidable`, …) so a new
 * family needs no new major version. `holds` is false whenever `checked` is false.
 */
export const AcceptanceLeaf = Type.Object(
  {
    criterion: Type.String(),
    family: Type.String({ minLength: 1 }),
    checked: Type.Boolean(),
    holds: Type.Boolean(),
    detail: Type.String(),
  },
  { additionalProperties: false },
);
export type AcceptanceLeaf = Static<typeof AcceptanceLeaf>;

/** `allHold`: every leaf was checked and holds (so an unchecked leaf makes it false). */
export const AcceptanceVerdictV1 = Type.Object(
  {
    source: Type.Literal("acceptance_checklist"),
    leaves: Type.Array(AcceptanceLeaf),
    unchecked: Type.Array(Type.String()),
    allHold: Type.Boolean(),
  },
  { additionalProperties: false },
);
export type AcceptanceVerdictV1 = Static<typeof AcceptanceVerdictV1>;

export default defineContract("acceptance-verdict", 1, "Keel acceptance verdict: deterministic acceptance checks", AcceptanceVerdictV1);
