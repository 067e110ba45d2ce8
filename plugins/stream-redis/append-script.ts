/**
 * Appending to a run's stream is one Lua script call per batch of events, so that reading
 * the last entry (for `prev`, the event number, the "already ended" check and the epoch
 * fence), the XADDs with exact trimming, the run's first `metadata` and the expiry after
 * `end` happen atomically even when several workers publish to the same run.
 *
 * Entry ids are `<ms>-<n>`: `<ms>` the Redis clock (never below the last entry's), `<n>`
 * the event's number in the run (1, 2, 3, …). A subscriber tells a lost event from the
 * numbers alone (continuity.ts), also after the stream was flushed or Redis restarted
 * empty: the publisher passes the number it expects next (`floor`), so events whose
 * write failed, or that a flush took, leave a hole in the numbering.
 */
import type { Redis } from "ioredis";

/**
 * KEYS[1] the stream, KEYS[2] the run's first-metadata hash.
 * ARGV: maxLen, ttlSeconds, floor, count, then per event: name, data (JSON), isEnd ("1"/"0"), epoch ("" for none).
 * Returns one string per event: its id; for an `end` after `end`, the existing `end`'s id;
 * `!ended` for any other event after `end`; `!fenced:<epoch>` for an event whose epoch is
 * below the last entry's. `MAXLEN n` without `~` trims exactly (the newest n are kept).
 */
const APPEND_LUA = `
local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
local prev = '0-0'
local lastMs, lastN, lastEpoch, ended = 0, 0, -1, false
if #last > 0 then
  prev = last[1][1]
  local ms, n = string.match(prev, '^(%d+)-(%d+)$')
  lastMs, lastN = tonumber(ms), tonumber(n)
  local fields = last[1][2]
  for i = 1, #fields, 2 do
    if fields[i] == 'event' and fields[i + 1] == 'end' then ended = true end
    if fields[i] == 'epoch' then lastEpoch = tonumber(fields[i + 1]) end
  end
end
local time = redis.call('TIME')
local ms = math.max(tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000), lastMs)
local n = math.max(lastN + 1, tonumber(ARGV[3]))
local results = {}
for k = 0, tonumber(ARGV[4]) - 1 do
  local name, data, isEnd, epoch = ARGV[5 + k * 4], ARGV[6 + k * 4], ARGV[7 + k * 4], ARGV[8 + k * 4]
  if ended then
    if isEnd == '1' then results[#results + 1] = prev else results[#results + 1] = '!ended' end
  elseif epoch ~= '' and tonumber(epoch) < lastEpoch then
    results[#results + 1] = '!fenced:' .. lastEpoch
  else
    local id = string.format('%.0f-%.0f', ms, n)
    if epoch ~= '' then
      redis.call('XADD', KEYS[1], 'MAXLEN', ARGV[1], id, 'event', name, 'data', data, 'prev', prev, 'epoch', epoch)
      lastEpoch = tonumber(epoch)
    else
      redis.call('XADD', KEYS[1], 'MAXLEN', ARGV[1], id, 'event', name, 'data', data, 'prev', prev)
    end
    if name == 'metadata' and redis.call('EXISTS', KEYS[2]) == 0 then
      redis.call('HSET', KEYS[2], 'id', id, 'data', data, 'prev', prev, 'epoch', epoch)
    end
    results[#results + 1] = id
    prev = id
    n = n + 1
    if isEnd == '1' then
      ended = true
      redis.call('EXPIRE', KEYS[1], ARGV[2])
      redis.call('EXPIRE', KEYS[2], ARGV[2])
    end
  end
end
return results
`;

/**
 * Append the entries in order, in one round trip; one result per entry (see APPEND_LUA).
 * Sent as plain EVAL (Redis caches the compiled script by its hash): EVALSHA would be
 * retried after a NOSCRIPT (e.g. `SCRIPT FLUSH`) behind later batches, out of order.
 */
export function appendBatch(redis: Redis, request: BatchRequest): Promise<string[]> {
  const args: Array<string | number> = [request.maxLen, request.ttlSeconds, request.floor, request.entries.length];
  for (const entry of request.entries) args.push(entry.event, entry.data, entry.isEnd ? "1" : "0", entry.epoch === undefined ? "" : String(entry.epoch));
  return redis.eval(APPEND_LUA, 2, request.streamKey, request.metadataKey, ...args) as Promise<string[]>;
}

export interface BatchEntry {
  event: string;
  /** The data as JSON. */
  data: string;
  isEnd: boolean;
  epoch?: number;
}

export interface BatchRequest {
  streamKey: string;
  metadataKey: string;
  maxLen: number;
  ttlSeconds: number;
  /** The number the publisher expects its first event of the batch to get (1 when it knows nothing of the run). */
  floor: number;
  entries: readonly BatchEntry[];
}
