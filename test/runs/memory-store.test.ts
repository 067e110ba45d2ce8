import { MemoryRunStore } from "../../kernel/runs/memory-store.js";
import { describeRunStoreConformance } from "./store-conformance.js";

describeRunStoreConformance("memory", async () => new MemoryRunStore(), {
  // One instance is one database: concurrent claims all go to it.
  makeEmptyStores: async () => ({ stores: [new MemoryRunStore()], dispose: async () => undefined }),
});
