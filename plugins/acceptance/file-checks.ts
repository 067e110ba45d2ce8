import { readFile, stat } from "node:fs/promises";
import { validate } from "../../contracts/registry.js";
import { isKeelError } from "../../kernel/errors.js";
import type { FileCheck } from "./criteria.js";
import { doesNotHold, holds, unverified, type AcceptanceEvidence, type LeafOutcome } from "./evidence.js";
import type { AcceptanceOptions } from "./options.js";

type Located = { abs: string; rel: string } | { outcome: LeafOutcome };

/** Resolve a criterion's path in the thread workspace; outside it the leaf is UNVERIFIED. */
function locate(evidence: AcceptanceEvidence, path: string): Located {
  try {
    return evidence.workspace.resolve(evidence.threadId, path);
  } catch (error) {
    if (isKeelError(error) && error.code === "KEEL_ERR_WORKSPACE_ESCAPE") return { outcome: unverified("path is outside the workspace") };
    return { outcome: unverified(`path cannot be resolved (${errorCode(error)})`) };
  }
}

function errorCode(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === "string" ? code : error instanceof Error ? error.message : String(error);
}

type Probe = { kind: "file"; size: number } | { outcome: LeafOutcome };

/** `stat` the target: a missing path is a checked failure, an uninspectable one is UNVERIFIED. */
async function probe(abs: string): Promise<Probe> {
  try {
    const info = await stat(abs);
    if (info.isDirectory()) return { outcome: doesNotHold("path is a directory, not a file") };
    return { kind: "file", size: info.size };
  } catch (error) {
    const code = errorCode(error);
    if (code === "ENOENT" || code === "ENOTDIR") return { outcome: doesNotHold("file does not exist") };
    return { outcome: unverified(`file cannot be inspected (${code})`) };
  }
}

/** Bytes of a file under the probe limit, read back; over it, the size alone. */
async function readBack(abs: string, size: number, options: AcceptanceOptions): Promise<{ bytes: number; probed: boolean } | { outcome: LeafOutcome }> {
  if (size > options.probeBytes) return { bytes: size, probed: true };
  try {
    return { bytes: (await readFile(abs)).length, probed: false };
  } catch (error) {
    return { outcome: unverified(`file cannot be read (${errorCode(error)})`) };
  }
}

/**
 * `file:<path> exists` / `file:<path> non-empty`.
 *
 * @example
 * await checkFile("out.md", "non-empty", evidence, options) // { checked: true, holds: true, detail: "read-back ok, 12 bytes" }
 */
export async function checkFile(path: string, check: FileCheck, evidence: AcceptanceEvidence, options: AcceptanceOptions): Promise<LeafOutcome> {
  const located = locate(evidence, path);
  if ("outcome" in located) return located.outcome;
  const found = await probe(located.abs);
  if ("outcome" in found) return found.outcome;
  if (check === "exists") return holds(`exists, ${found.size} bytes`);
  if (found.size === 0) return doesNotHold("file is empty");
  const back = await readBack(located.abs, found.size, options);
  if ("outcome" in back) return back.outcome;
  if (back.probed) return holds(`non-empty by size probe, ${back.bytes} bytes (not read)`);
  return back.bytes === 0 ? doesNotHold("file is empty") : holds(`read-back ok, ${back.bytes} bytes`);
}

/** `file_written:<path>`: a successful write_file/str_replace of that path in the run, and the file is there now. */
export async function checkFileWritten(path: string, evidence: AcceptanceEvidence, options: AcceptanceOptions): Promise<LeafOutcome> {
  const located = locate(evidence, path);
  if ("outcome" in located) return located.outcome;
  if (evidence.filesWritten === undefined) return unverified("no record of file writes was given");
  const written = new Set<string>();
  for (const p of evidence.filesWritten) {
    try {
      written.add(evidence.workspace.resolve(evidence.threadId, p).rel);
    } catch {
      // A write outside the workspace was refused by the tool; it cannot be this path.
    }
  }
  if (!written.has(located.rel)) return doesNotHold("no successful write_file or str_replace of this path in the run");
  const found = await probe(located.abs);
  if ("outcome" in found) return found.outcome.checked ? doesNotHold(`written in the run, but ${found.outcome.detail}`) : found.outcome;
  const back = await readBack(located.abs, found.size, options);
  if ("outcome" in back) return back.outcome;
  return holds(back.probed ? `written in the run; ${back.bytes} bytes by size probe (not read)` : `written in the run; read-back ok, ${back.bytes} bytes`);
}

/** `json_valid:<path> <contract>@<version>`: the file parses as JSON and validates against the contract. */
export async function checkJsonValid(path: string, contract: string, evidence: AcceptanceEvidence): Promise<LeafOutcome> {
  const located = locate(evidence, path);
  if ("outcome" in located) return located.outcome;
  const found = await probe(located.abs);
  if ("outcome" in found) return found.outcome;
  let text: string;
  try {
    text = await readFile(located.abs, "utf8");
  } catch (error) {
    return unverified(`file cannot be read (${errorCode(error)})`);
  }
  let payload: unknown;
  try {
    payload = JSON.parse(text);
  } catch (error) {
    return doesNotHold(`not valid JSON: ${(error as Error).message}`);
  }
  const check = evidence.contractValidate ?? ((ref: string, value: unknown) => validate(ref, value));
  let result: ReturnType<typeof check>;
  try {
    result = check(contract, payload);
  } catch (error) {
    return unverified(`contract \`${contract}\` cannot be checked: ${(error as Error).message ?? String(error)}`);
  }
  if (result.valid) return holds(`parses and validates as ${contract}, ${Buffer.byteLength(text, "utf8")} bytes`);
  const issues = result.errors.slice(0, 3).map((e) => `${e.pointer || "/"}: ${e.message}`);
  return doesNotHold(`does not validate as ${contract}: ${issues.join("; ")}${result.errors.length > 3 ? "; …" : ""}`);
}
