import { benchAdmission } from "./admission.bench.js";
import { benchCheckpoint } from "./checkpoint.bench.js";
import { benchCompose } from "./compose.bench.js";
import { benchHttp } from "./http.bench.js";
import { benchLoop } from "./loop.bench.js";
import { benchMemory } from "./memory.bench.js";
import { benchSizes } from "./sizes.bench.js";
import { benchStream } from "./stream.bench.js";

/** `npm run bench`: every figure is a ratio against a baseline measured in the same run. */
const suites: Record<string, () => Promise<string[]>> = {
  compose: benchCompose,
  loop: benchLoop,
  http: benchHttp,
  admission: benchAdmission,
  stream: benchStream,
  checkpoint: () => benchCheckpoint(),
  sizes: benchSizes,
  memory: benchMemory,
};
const only = process.argv.slice(2);
for (const [name, run] of Object.entries(suites)) {
  if (only.length > 0 && !only.includes(name)) continue;
  for (const line of await run()) process.stdout.write(`${line}\n`);
  process.stdout.write("\n");
}
