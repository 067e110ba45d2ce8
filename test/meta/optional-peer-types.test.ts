import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { packageRoot } from "../../kernel/package-root.js";

/**
 * A consumer type-checks `keel` with `skipLibCheck: false` and without the optional
 * OpenTelemetry packages (the packed consumer in CI does): no declaration file reachable
 * from a package entry may import one of them.
 */
const ROOT = packageRoot();
const ENTRIES = ["dist/tools/index.d.ts", "dist/tools/host/index.d.ts", "dist/tools/testing/index.d.ts", "dist/contracts/index.d.ts"];
const OPTIONAL = /["']@opentelemetry\/[^"']+["']/;

function reachable(entry: string): Map<string, string> {
  const seen = new Map<string, string>();
  const queue = [join(ROOT, entry)];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file) || !existsSync(file)) continue;
    const text = readFileSync(file, "utf8");
    seen.set(file, text);
    for (const match of text.matchAll(/(?:from\s+|import\()["'](\.[^"']+)["']/g)) queue.push(resolve(dirname(file), match[1]!.replace(/\.js$/, ".d.ts")));
  }
  return seen;
}

describe("public declarations without the optional OpenTelemetry packages", () => {
  it("no declaration file a package entry reaches imports an OpenTelemetry package", () => {
    for (const entry of ENTRIES) expect(existsSync(join(ROOT, entry)), `${entry}: build dist first`).toBe(true);
    const offending: string[] = [];
    for (const entry of ENTRIES) for (const [file, text] of reachable(entry)) if (OPTIONAL.test(text)) offending.push(file.slice(ROOT.length + 1));
    expect(offending).toEqual([]);
    // The check sees the tracing API at all (so an empty list is not a walk that found nothing).
    expect([...reachable(ENTRIES[0]!).keys()].some((file) => file.endsWith("plugins/tracing/otlp-tracing.d.ts"))).toBe(true);
  });
});
