/**
 * The failure cases (failure-cases.ts) on servers whose scripted model fails on every call:
 * each case's SDK call goes to both, the answers masked may differ only as the case expects
 * (DIFFERENCES.md). Its own file: the LangGraph server keeps its graphs in a module-level registry.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Setup } from "./cases.js";
import { diff, judge, mask } from "./compare.js";
import { FAILURE_CASES } from "./failure-cases.js";
import { startServers, type Servers } from "./servers.js";

describe("differential: a failing model on Keel and on @langchain/langgraph-api 1.5.1", () => {
  let servers: Servers;
  const setup = (side: "keel" | "langgraph"): Setup => ({ threadId: "", runId: "", assistantId: "lead", url: servers[side].url });
  beforeAll(async () => {
    servers = await startServers({ fixtures: { langgraph: "langgraph-failing-graph.mjs", keel: "failing.scenario.json" } });
  }, 30_000);
  afterAll(async () => servers?.close());

  for (const testCase of FAILURE_CASES) {
    it(testCase.name, async () => {
      const differences = diff(mask(await testCase.run(servers.keel.client, setup("keel"))), mask(await testCase.run(servers.langgraph.client, setup("langgraph"))));
      if (process.env.DIFFERENTIAL_DUMP) for (const d of differences) console.log(`DIFF ${testCase.name} | ${d.pointer} | ${d.kind} | ${JSON.stringify(d.keel)?.slice(0, 700)} | ${JSON.stringify(d.langgraph)?.slice(0, 700)}`);
      const verdict = judge(differences, testCase.expect);
      expect({ unexpected: verdict.unexpected, stale: verdict.stale }).toEqual({ unexpected: [], stale: [] });
    });
  }
});
