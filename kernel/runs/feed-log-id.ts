/** The stream-bridge log the run-status feed (run-feed.ts) is published on: one shared log, not a run's. */
export const FEED_LOG_ID = "keel:run-feed";
