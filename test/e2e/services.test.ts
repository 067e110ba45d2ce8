/**
 * The helper that decides whether the PostgreSQL tests run: a login, not an open port,
 * is what counts; locally a reason to skip, under CI=true a failure.
 */
import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { PG_URL, postgresUnavailable } from "./services.js";

const local = { CI: "" };
const ci = { CI: "true" };

/** A URL on the test server with a role that does not exist (refused whatever the auth method). */
function wrongLogin(): string {
  const url = new URL(PG_URL);
  url.username = `keel_no_such_role_${process.pid}`;
  url.password = "wrong";
  return url.toString();
}

const serverUp = (await postgresUnavailable(PG_URL, local)) === null;

describe("postgresUnavailable", () => {
  it("names a closed port locally, and throws under CI=true", async () => {
    const closed = "postgres://keel:keel@127.0.0.1:9/keel";
    expect(await postgresUnavailable(closed, local)).toMatch(/not reachable at KEEL_TEST_PG_URL \(postgres:\/\/keel:\*\*\*@127\.0\.0\.1:9\/keel\)/);
    await expect(postgresUnavailable(closed, ci)).rejects.toThrow(/CI=true, so this is a failure/);
  });

  it("names an open port that is not PostgreSQL (no login possible)", async () => {
    const server = createServer((socket) => socket.end());
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as { port: number }).port;
    try {
      expect(await postgresUnavailable(`postgres://keel:keel@127.0.0.1:${port}/keel`, local)).toMatch(/answers but cannot be logged into/);
    } finally {
      server.close();
    }
  });

  it.skipIf(!serverUp)("names a refused login on a running server (the port alone is not enough), and throws under CI=true", async () => {
    const reason = await postgresUnavailable(wrongLogin(), local);
    expect(reason).toMatch(/answers but cannot be logged into: .*keel_no_such_role_/);
    expect(reason).not.toContain(":wrong@");
    await expect(postgresUnavailable(wrongLogin(), ci)).rejects.toThrow(/cannot be logged into.*CI=true/);
  });

  it.skipIf(!serverUp)("answers null for the configured server", async () => {
    expect(await postgresUnavailable(PG_URL, ci)).toBeNull();
  });
});
