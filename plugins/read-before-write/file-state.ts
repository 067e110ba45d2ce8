import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";

/** What a file looks like now, for the read-before-write check. */
export type FileState =
  | { kind: "file"; sha256: string }
  /** Nothing there (or a parent is not a directory): a write would create it. */
  | { kind: "missing" }
  /** Could not be read (permissions, a directory, …): the check fails open. */
  | { kind: "uninspectable"; code: string };

/** sha256 (hex) of the file's bytes, the same digest the run report's workspace snapshot uses. */
export async function inspectFile(abs: string): Promise<FileState> {
  try {
    return { kind: "file", sha256: createHash("sha256").update(await readFile(abs)).digest("hex") };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException | undefined)?.code ?? "unknown";
    if (code === "ENOENT" || code === "ENOTDIR") return { kind: "missing" };
    return { kind: "uninspectable", code };
  }
}
