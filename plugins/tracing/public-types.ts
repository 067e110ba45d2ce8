/**
 * The types tracing's public API names. They mention no OpenTelemetry type, so a consumer's
 * type check of `keel` works without the optional OpenTelemetry packages installed.
 */

/** What gives a tracer: an OpenTelemetry `TracerProvider` (the SDK's or any other). */
export interface TracerSource {
  getTracer(name: string, version?: string): unknown;
}

/** The module loader (a seam for tests: a loader that fails like a missing package). */
export type PackageImporter = <T>(packageName: string, load: () => Promise<T>) => Promise<T>;
