/** Quote a name the way every composition message does. */
export function tick(name: string): string {
  return `\`${name}\``;
}

/** `["a","b"]`, the form a pair takes in a stack's `order`. */
export function orderPair(before: string, after: string): string {
  return JSON.stringify([before, after]);
}

/** `a`, `b` and `c` */
export function listNames(names: readonly string[]): string {
  const quoted = names.map(tick);
  if (quoted.length <= 1) return quoted.join("");
  return `${quoted.slice(0, -1).join(", ")} and ${quoted[quoted.length - 1]}`;
}
