/**
 * The object checks every layer shares (contracts/ is the bottom layer, so the kernel,
 * plugins and tools may all import them).
 */

/**
 * Any object that is not an array or `null`, class instances included: a value that
 * can be read key by key (a parsed JSON object, a schema, a message).
 */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * A plain data object: `{ … }` or `Object.create(null)`, not a class instance. What may be
 * copied or frozen as data without breaking an instance (a plugin, a message).
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (!isRecord(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}
