import { MemoryRunStore } from "../../kernel/runs/memory-store.js";
import { describeRunStoreConformance } from "./store-conformance.js";

describeRunStoreConformance("memory", async () => new MemoryRunStore());
