import { createHash } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import { KeelError } from "../../kernel/errors.js";
import { HttpError } from "./http-errors.js";

/** The one user of a server started without API keys (it then binds loopback only). */
export const LOCAL_USER = "local";

/**
 * API keys → users, from `KEEL_API_KEYS` (`key:user,key2:user2`). Keys are held as
 * SHA-256 digests, so a lookup's timing says nothing about a key's characters.
 */
export class ApiKeys {
  private readonly users = new Map<string, string>();

  constructor(entries: Iterable<readonly [key: string, user: string]> = []) {
    for (const [key, user] of entries) this.users.set(digest(key), user);
  }

  /** Parse `key:user,key2:user2`; whitespace around entries is ignored. Throws on a malformed entry. */
  static parse(text: string | undefined): ApiKeys {
    const entries: [string, string][] = [];
    for (const raw of (text ?? "").split(",")) {
      const entry = raw.trim();
      if (entry === "") continue;
      const colon = entry.lastIndexOf(":");
      const key = entry.slice(0, colon).trim();
      const user = entry.slice(colon + 1).trim();
      if (colon <= 0 || key === "" || user === "") {
        throw new KeelError("KEEL_ERR_SERVE_CONFIG", `KEEL_API_KEYS entry \`${entry.length > 4 ? entry.slice(0, 4) + "…" : entry}\` is not of the form key:user`);
      }
      entries.push([key, user]);
    }
    return new ApiKeys(entries);
  }

  get size(): number {
    return this.users.size;
  }

  /** The user a request acts as; throws 401 when keys are configured and the request has no known one. */
  authenticate(headers: IncomingHttpHeaders): string {
    if (this.users.size === 0) return LOCAL_USER;
    const key = presentedKey(headers);
    if (key === undefined) throw new HttpError(401, "KEEL_ERR_HTTP_UNAUTHORIZED", "missing API key: send `x-api-key` or `Authorization: Bearer`");
    const user = this.users.get(digest(key));
    if (user === undefined) throw new HttpError(401, "KEEL_ERR_HTTP_UNAUTHORIZED", "unknown API key");
    return user;
  }
}

function presentedKey(headers: IncomingHttpHeaders): string | undefined {
  const direct = headers["x-api-key"];
  const key = Array.isArray(direct) ? direct[0] : direct;
  if (key) return key.trim();
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(headers.authorization ?? "");
  return bearer?.[1];
}

function digest(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}
