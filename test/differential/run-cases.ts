/**
 * Run a case list on servers of its own (`startServers(options)`): for the cases whose
 * script differs from the suite's (a server serves one script). Each caller is its own test
 * file: the LangGraph server keeps its graphs in a module-level registry.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DifferentialCase, Setup } from "./cases.js";
import { diff, judge, mask } from "./compare.js";
import { startServers, type ServerOptions, type Servers } from "./servers.js";

export function describeCases(title: string, cases: readonly DifferentialCase[], options: ServerOptions): void {
  describe(title, () => {
    let servers: Servers;
    const setups: Partial<Record<"keel" | "langgraph", Setup>> = {};
    beforeAll(async () => {
      servers = await startServers(options);
      for (const side of ["keel", "langgraph"] as const) {
        const [assistant] = await servers[side].client.assistants.search();
        setups[side] = { threadId: "", runId: "", assistantId: assistant!.assistant_id, url: servers[side].url };
      }
    }, 30_000);
    afterAll(async () => servers?.close());

    for (const testCase of cases) {
      it(testCase.name, async () => {
        const differences = diff(mask(await testCase.run(servers.keel.client, setups.keel!)), mask(await testCase.run(servers.langgraph.client, setups.langgraph!)));
        if (process.env.DIFFERENTIAL_DUMP) for (const d of differences) console.log(`DIFF ${testCase.name} | ${d.pointer} | ${d.kind} | ${JSON.stringify(d.keel)?.slice(0, 100)} | ${JSON.stringify(d.langgraph)?.slice(0, 100)}`);
        const verdict = judge(differences, testCase.expect);
        expect({ unexpected: verdict.unexpected, stale: verdict.stale }).toEqual({ unexpected: [], stale: [] });
      });
    }
  });
}
