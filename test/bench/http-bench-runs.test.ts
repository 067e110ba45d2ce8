/**
 * The bench is not part of CI, so a change elsewhere can break a suite unnoticed (the `http`
 * suite once streamed 2 frames instead of 1,000 after the default stream mode changed).
 * This runs the small `http` suite whole: it must end, and each of its own checks (every
 * frame served, every admission admitted) must hold. No timing is asserted.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { packageRoot } from "../../kernel/package-root.js";

const MAIN = join(packageRoot(), "dist", "tools", "bench", "main.js");

describe("npm run bench: the http suite", () => {
  it("runs to its end, serving every frame it published through the gateway", () => {
    if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: build first (npm test runs tsc before vitest)`);
    const run = spawnSync(process.execPath, [MAIN, "http"], { encoding: "utf8", timeout: 120_000, env: { ...process.env } });
    expect(run.stderr + run.stdout).not.toMatch(/Error:/);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^SSE memory bridge: [\d,]+ events\/s \(1000 events, best of \d+\)/m);
    expect(run.stdout).toMatch(/^replay memory bridge from a mid-stream Last-Event-ID \(499 events\)/m);
    expect(run.stdout).toMatch(/^admissions SQLite: [\d,]+\/s \(200 sequential admitRun transactions/m);
    // Redis and PostgreSQL parts print a skip line when unreachable; under CI they must run.
    if (process.env.CI === "true") {
      expect(run.stdout).toMatch(/^SSE Redis bridge: [\d,]+ events\/s \(1000 events/m);
      expect(run.stdout).toMatch(/^admissions PostgreSQL: [\d,]+\/s/m);
    }
  }, 150_000);
});
