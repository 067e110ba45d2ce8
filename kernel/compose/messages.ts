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

/**
 * The `fix:` line to print under a problem's message, or undefined when the message already
 * says it (quoting aside: "add … to `order`" and "add … to order" are one fix, printed once).
 */
export function fixLine(message: string, fix: string | undefined): string | undefined {
  if (fix === undefined || fix.trim() === "") return undefined;
  const plain = (text: string) => text.replace(/`/g, "").replace(/\s+/g, " ").trim().toLowerCase();
  return plain(message).includes(plain(fix)) ? undefined : fix;
}
