/** `keel replay THREAD/RUN --url` against a real `keel serve` (scripted model): the served run replays the same. */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../tools/cli/main.js";
import { FIXTURES, startServe, tempDir, type ServeProcess } from "../e2e/serve-process.js";
import { captureIO } from "./capture-io.js";

const cwd = tempDir("keel-replay-serve-");
let server: ServeProcess;

beforeAll(async () => {
  server = await startServe(["--port", "0", "--db", "sqlite::memory:", "--model", `scripted:${join(FIXTURES, "steps.scenario.json")}`], { cwd, env: { KEEL_API_KEYS: "k-replay:ana" } });
}, 60_000);
afterAll(async () => {
  await server?.stop("SIGTERM");
  rmSync(cwd, { recursive: true, force: true });
});

describe("keel replay of a run served by keel serve", () => {
  it("fetches the finished run's report with the API key and replays it on the same stack: same, no divergence", async () => {
    const headers = { "content-type": "application/json", "x-api-key": "k-replay" };
    const post = (path: string, body: unknown) => fetch(`${server.url}${path}`, { method: "POST", headers, body: JSON.stringify(body) });
    expect((await post("/threads", { thread_id: "replay-thread" })).status).toBe(200);
    expect((await post("/threads/replay-thread/runs/wait", { assistant_id: "lead", input: { messages: [{ role: "user", content: "Write a note." }] } })).status).toBe(200);
    const runs = (await (await fetch(`${server.url}/threads/replay-thread/runs`, { headers })).json()) as Array<{ run_id: string }>;
    expect(runs).toHaveLength(1);
    const ref = `replay-thread/${runs[0]!.run_id}`;

    const io = captureIO();
    expect(await main(["replay", ref, "--url", server.url, "--api-key", "k-replay", "--json"], io), io.stderr.join("\n")).toBe(0);
    const out = io.json();
    expect(out.recorded.status).toBe("succeeded");
    expect(out.recorded.text).toBe("Done: note.md written.");
    expect(out.divergence).toBeUndefined();
    expect(out.same).toBe(true);
    expect(out.replayed).toMatchObject({ status: "succeeded", text: "Done: note.md written.", stopReasons: [] });
    expect(out.report.turns).toEqual({ lead: 3, total: 3 });
    expect(Object.keys(out.report.workspace.files)).toEqual(["note.md"]);

    // Without the key the gateway refuses: a clear fetch error, exit 2.
    const refused = captureIO();
    expect(await main(["replay", ref, "--url", server.url, "--json"], refused)).toBe(2);
    expect(refused.json().error.code).toBe("KEEL_ERR_REPLAY_FETCH");
    expect(refused.json().error.message).toContain("answered 401 (pass --api-key)");
  }, 30_000);
});
