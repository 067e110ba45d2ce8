/**
 * A full garbage collection before a measured run, so that no variant pays for collecting
 * what the variant before it left behind (a stock saver's 1000-turn run leaves hundreds of
 * megabytes). The bench runs with `--expose-gc` (`npm run bench`); without it this does
 * nothing, and the suites still run.
 */
export function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}
