import { MemoryCronStore } from "../../kernel/runs/cron-memory-store.js";
import { MemoryRunStore } from "../../kernel/runs/memory-store.js";
import { describeCrons } from "./cron-suite.js";

// Memory: one store instance shared by both workers, as one process would.
describeCrons("memory", async () => {
  const store = new MemoryRunStore();
  const crons = new MemoryCronStore();
  return { runStores: [store, store], cronStores: [crons, crons], dispose: async () => undefined };
});
