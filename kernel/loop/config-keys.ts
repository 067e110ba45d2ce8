/** The graph config key naming the live run a node belongs to (a resumed thread's loop state was written by an earlier run). */
export const RUN_KEY_CONFIG = "keel_run_key";
