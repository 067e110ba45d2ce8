/**
 * Appending to a run's stream is one Lua script, so that reading the last entry (for
 * `prev` and the "already ended" check), XADD with exact trimming, and the expiry after
 * `end` happen atomically even when several workers publish to the same run.
 */
import type { Redis } from "ioredis";
import { KeelError } from "../../kernel/errors.js";

/**
 * KEYS[1] the stream; ARGV: maxLen, event, data (JSON), isEnd ("1"/"0"), ttlSeconds.
 * Returns the new entry's id; for a repeated `end`, the id of the existing `end`.
 * `MAXLEN n` without `~` trims exactly, so retention is predictable (the newest n).
 */
const APPEND_LUA = `
local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
local prev = '0-0'
if #last > 0 then
  prev = last[1][1]
  local fields = last[1][2]
  for i = 1, #fields, 2 do
    if fields[i] == 'event' and fields[i + 1] == 'end' then
      if ARGV[4] == '1' then return prev end
      return redis.error_reply('KEEL_STREAM_ENDED')
    end
  end
end
local id = redis.call('XADD', KEYS[1], 'MAXLEN', ARGV[1], '*', 'event', ARGV[2], 'data', ARGV[3], 'prev', prev)
if ARGV[4] == '1' then redis.call('EXPIRE', KEYS[1], ARGV[5]) end
return id
`;

const COMMAND = "keelStreamAppend";

interface WithAppend {
  [COMMAND](key: string, maxLen: number, event: string, data: string, isEnd: "1" | "0", ttlSeconds: number): Promise<string>;
}

/** Register the script on a connection (ioredis sends it by SHA, loading it on first use). */
export function defineAppendScript(redis: Redis): void {
  redis.defineCommand(COMMAND, { numberOfKeys: 1, lua: APPEND_LUA });
}

export interface AppendRequest {
  key: string;
  runId: string;
  event: string;
  data: string;
  isEnd: boolean;
  maxLen: number;
  ttlSeconds: number;
}

export async function appendEntry(redis: Redis, request: AppendRequest): Promise<string> {
  const { key, runId, event, data, isEnd, maxLen, ttlSeconds } = request;
  try {
    return await (redis as unknown as WithAppend)[COMMAND](key, maxLen, event, data, isEnd ? "1" : "0", ttlSeconds);
  } catch (error) {
    if (error instanceof Error && error.message.includes("KEEL_STREAM_ENDED")) {
      throw new KeelError("KEEL_ERR_STREAM_ENDED", `run \`${runId}\` already ended its stream; \`${event}\` was not published`);
    }
    throw error;
  }
}
