import { loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { benchAdmission } from "./admission.bench.js";
import { benchCheckpoint } from "./checkpoint.bench.js";
import { benchCompose } from "./compose.bench.js";
import { benchHttp } from "./http.bench.js";
import { benchLoop } from "./loop.bench.js";
import { benchMemory } from "./memory.bench.js";
import { benchPage } from "./page.bench.js";
import { benchSizes } from "./sizes.bench.js";
import { benchStream } from "./stream.bench.js";
import { benchStreamModes } from "./stream-modes.bench.js";

/** `npm run bench`: every figure is a ratio against a baseline measured in the same run. */
const suites: Record<string, () => Promise<string[]>> = {
  compose: benchCompose,
  loop: benchLoop,
  http: benchHttp,
  admission: benchAdmission,
  stream: benchStream,
  "stream-modes": benchStreamModes,
  checkpoint: () => benchCheckpoint(),
  sizes: benchSizes,
  memory: benchMemory,
  page: benchPage,
};
const only = process.argv.slice(2);
const started = performance.now();
const times: string[] = [];
for (const [name, run] of Object.entries(suites)) {
  if (only.length > 0 && !only.includes(name)) continue;
  const suiteStarted = performance.now();
  for (const line of await run()) process.stdout.write(`${line}\n`);
  times.push(`${name} ${((performance.now() - suiteStarted) / 1000).toFixed(0)} s`);
  process.stdout.write("\n");
}
// The whole bench must stay under 20 minutes on the development machine (tools/bench/README.md).
process.stdout.write(`bench time ${((performance.now() - started) / 1000).toFixed(0)} s (${times.join(", ")}); load average ${loadavg().map((x) => x.toFixed(1)).join(" ")}\n`);
