/**
 * Redis names of a run's stream data. One stream per run keeps retention (MAXLEN) and
 * expiry (EXPIRE after `end`) per run, and lets any worker read any run by its id.
 */

/** The run's event log: a Redis stream whose entry ids are the event ids. */
export function eventsKey(runId: string): string {
  return `keel:run:${runId}:events`;
}

/**
 * The run's first `metadata` event (hash: `id`, `data`, `prev`, `epoch`), kept when MAXLEN
 * trims it from the stream, so a replay from the start still begins with it. Expires with the stream.
 */
export function metadataKey(runId: string): string {
  return `keel:run:${runId}:metadata`;
}

/** The pub/sub channel of the run's control messages (e.g. cancel, sent by any worker). */
export function controlChannel(runId: string): string {
  return `keel:run:${runId}:control`;
}

const CONTROL_CHANNEL = /^keel:run:(.+):control$/s;

/** The run id of a control channel name, or null for a channel that is not one. */
export function runIdOfControlChannel(channel: string): string | null {
  return CONTROL_CHANNEL.exec(channel)?.[1] ?? null;
}
