import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";

// The package entries, imported by name from the built dist (the package refers to itself
// through its `exports`), the way an installed copy is imported.
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const ENTRIES = ["keel", "keel/host", "keel/testing", "keel/contracts"] as const;
type Entry = (typeof ENTRIES)[number];

/** What `keel` exports for good: the documented library API and what plugins use. */
const KEEL = [
  "BUILTIN_PLUGINS",
  "BUILTIN_STACKS",
  "CompositionError",
  "ERRORS",
  "ITEM_STORE_PORT",
  "KERNEL_CHANNELS",
  "KERNEL_PRODUCES",
  "KERNEL_VERSION",
  "KeelError",
  "MODEL_PORT",
  "MemoryItemStore",
  "PSEUDO_CHANNELS",
  "RunManager",
  "SUMMARY_INSTRUCTIONS",
  "UserItemStore",
  "WORKSPACE_PORT",
  "builtinPlugin",
  "canonicalJson",
  "combineObservers",
  "compose",
  "createAgentRuntime",
  "definePlugin",
  "extractiveSummary",
  "fromLangChainMiddleware",
  "isHidden",
  "isKeelError",
  "isPluginLike",
  "keelMeta",
  "lastAssistant",
  "loadPluginModule",
  "loadStack",
  "messageText",
  "modelSummarizer",
  "normalizeFinish",
  "normalizeUsage",
  "readStack",
  "setKeelMeta",
  "sha256Hex",
  "toPlugin",
  "usableText",
  "startOtlpTracing",
  "tracingObserver",
  "validateManifest",
];

/** The host internals `keel/host` exports (and `keel` re-exports, deprecated, for one more minor version). */
const HOST = [
  "MemoryRunStore",
  "MemoryStreamBridge",
  "RunScope",
  "buildRunReport",
  "createChildRunner",
  "createRuntimeExecutor",
  "deriveStatus",
  "initialValue",
  "installSignalHandlers",
  "isCommutativeReducer",
  "primaryStopReason",
  "reduceChannel",
  "sanitizeRunRequest",
  "steppingClock",
  "systemClock",
  "toReportMessage",
  "turnsByAgent",
];

/** What only `keel/host` exports: the kit a stream bridge (a third-party one too) builds on. */
const HOST_ONLY = [
  "ControlHandlers",
  "EventIdSequence",
  "METRIC",
  "createKeelMetrics",
  "resolveOtlpEndpoint",
  "startHostTracing",
  "ZERO_EVENT_ID",
  "assertEventId",
  "assertPublishable",
  "compareEventIds",
  "followLog",
  "followsCursor",
  "gapEvent",
  "isControlMessage",
  "isEventId",
  "linkedSignal",
  "readLastEventId",
  "readRetentionOptions",
  "runtimeOwnedChannels",
  "runtimeOwnedKeys",
  "unrefTimers",
];

/** For each entry, each export name and whether it is the same value as `keel`'s export of that name. */
let exported: Record<Entry, Record<string, { sameAsKeel: boolean }>>;

beforeAll(() => {
  for (const entry of ["tools/index", "tools/host/index", "tools/testing/index", "contracts/index"]) {
    for (const ext of [".js", ".d.ts"]) {
      if (!existsSync(join(ROOT, "dist", entry + ext))) throw new Error(`dist/${entry}${ext} is missing: build dist first (npx tsc -p tsconfig.json; npm test does)`);
    }
  }
  const script = `
    const keel = await import("keel");
    const out = {};
    for (const entry of ${JSON.stringify(ENTRIES)}) {
      const mod = await import(entry);
      out[entry] = Object.fromEntries(Object.keys(mod).map((name) => [name, { sameAsKeel: keel[name] === mod[name] }]));
    }
    process.stdout.write(JSON.stringify(out));`;
  exported = JSON.parse(execFileSync(process.execPath, ["--input-type=module", "-e", script], { cwd: ROOT, encoding: "utf8" }));
}, 60_000);

const names = (entry: Entry) => Object.keys(exported[entry]).sort();

describe("package entries by audience", () => {
  it("keel exports the documented library API (INTERFACES) and what plugins use, plus the deprecated host re-exports", () => {
    for (const name of ["definePlugin", "compose", "createAgentRuntime", "RunManager", "loadStack", "CompositionError"]) expect(names("keel")).toContain(name);
    expect(names("keel")).toEqual([...KEEL, ...HOST].sort());
  });

  it("keel/host holds the host internals, and keel's re-exports are the very same values", () => {
    expect(names("keel/host")).toEqual([...HOST, ...HOST_ONLY].sort());
    for (const name of HOST) expect(exported["keel/host"][name], name).toEqual({ sameAsKeel: true });
    for (const name of ["definePlugin", "compose", "RunManager", "loadStack"]) expect(names("keel/host")).not.toContain(name);
  });

  it("keel/testing and keel/contracts stay", () => {
    for (const name of ["PluginTester", "ScriptedChatModel", "runScenario", "assertScenario", "summarizeReport"]) expect(names("keel/testing")).toContain(name);
    for (const name of ["contracts", "validate", "upgrade", "diffSchemas"]) expect(names("keel/contracts")).toContain(name);
  });

  it("buildRunReport has one home, keel/host (keel/testing no longer exports a second copy)", () => {
    const homes = ENTRIES.filter((entry) => names(entry).includes("buildRunReport"));
    expect(homes).toEqual(["keel", "keel/host"]);
    expect(exported["keel/host"].buildRunReport).toEqual({ sameAsKeel: true });
    expect(names("keel/testing")).not.toContain("buildRunReport");
  });
});
