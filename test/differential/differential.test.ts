/**
 * The differential suite (README.md here): every case's SDK call goes to the LangGraph JS
 * Agent Server and to Keel; the answers, ids and timestamps masked, may differ only as the
 * case expects, and each expected difference is explained by its row in docs/http.md's
 * differences table (between the `differences:start` / `differences:end` markers).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Client } from "@langchain/langgraph-sdk";
import { CASES, INPUT, type Setup } from "./cases.js";
import { FAILURE_CASES } from "./failure-cases.js";
import { INTERRUPT_CASES } from "./interrupt-cases.js";
import { diff, judge, mask } from "./compare.js";
import { differenceIds } from "./differences-table.js";
import { startServers, type Servers } from "./servers.js";

const DIFFERENCES = differenceIds();

async function setUp(client: Client, url: string): Promise<Setup> {
  const thread = await client.threads.create({ metadata: { suite: "differential" } });
  const run = await client.runs.create(thread.thread_id, "lead", { input: INPUT });
  await client.runs.join(thread.thread_id, run.run_id);
  const [assistant] = await client.assistants.search();
  return { threadId: thread.thread_id, runId: run.run_id, assistantId: assistant!.assistant_id, url };
}

describe("differential: Keel vs @langchain/langgraph-api 1.5.1", () => {
  let servers: Servers;
  let keel: Setup;
  let langgraph: Setup;
  beforeAll(async () => {
    servers = await startServers();
    keel = await setUp(servers.keel.client, servers.keel.url);
    langgraph = await setUp(servers.langgraph.client, servers.langgraph.url);
  }, 30_000);
  afterAll(async () => servers?.close());

  for (const testCase of CASES) {
    it(testCase.name, async () => {
      const fromKeel = mask(await testCase.run(servers.keel.client, keel));
      const fromLangGraph = mask(await testCase.run(servers.langgraph.client, langgraph));
      const differences = diff(fromKeel, fromLangGraph);
      // DIFFERENTIAL_DUMP=1: print each difference in one line, to write a new case's expectations.
      if (process.env.DIFFERENTIAL_DUMP) for (const d of differences) console.log(`DIFF ${testCase.name} | ${d.pointer} | ${d.kind} | ${JSON.stringify(d.keel)?.slice(0, 80)} | ${JSON.stringify(d.langgraph)?.slice(0, 80)}`);
      const verdict = judge(differences, testCase.expect);
      expect({ unexpected: verdict.unexpected, stale: verdict.stale }).toEqual({ unexpected: [], stale: [] });
    });
  }

  it("every difference a case expects is explained in docs/http.md's differences table, and every row there is expected by a case", () => {
    const named = new Set([...CASES, ...FAILURE_CASES, ...INTERRUPT_CASES].flatMap((c) => c.expect.map((e) => e.id)));
    expect([...named].filter((id) => !DIFFERENCES.includes(id))).toEqual([]);
    // D14 is checked by auth.differential.test.ts (statuses, not a masked answer); S7 (the model
    // step's own `events`) is what the `runs.stream events` case filters out on both sides.
    expect(DIFFERENCES.filter((id) => !named.has(id))).toEqual(["D14", "S7"]);
  });
});
