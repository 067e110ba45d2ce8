import { accepts } from "./accepts.js";
import { samples } from "./sample.js";
import type { Shape } from "./types.js";

/** A value `from` admits and `to` rejects, both confirmed by evaluation. */
export function witness(from: Shape, to: Shape): unknown {
  for (const v of samples(from)) if (accepts(from, v) === "yes" && accepts(to, v) === "no") return v;
  return undefined;
}
