/**
 * The OpenTelemetry packages, imported only when tracing is asked for (they are optional
 * peer dependencies): a process that never traces never loads them, and one that asks for
 * tracing without them gets `KEEL_ERR_OPTIONAL_DEPENDENCY_MISSING` naming what to install.
 */
import { importOptional } from "../../kernel/optional-import.js";

/** Every package OTLP export needs, in one `npm install` line. */
export const OTLP_PACKAGES = "@opentelemetry/api @opentelemetry/sdk-trace-base @opentelemetry/resources @opentelemetry/exporter-trace-otlp-http";

const NEEDED_FOR = "tracing (`--otlp-endpoint`, OTEL_EXPORTER_OTLP_ENDPOINT)";

export type OtelApi = typeof import("@opentelemetry/api");

export interface OtlpPackages {
  api: OtelApi;
  sdk: typeof import("@opentelemetry/sdk-trace-base");
  resources: typeof import("@opentelemetry/resources");
  exporter: typeof import("@opentelemetry/exporter-trace-otlp-http");
}

import type { PackageImporter } from "./public-types.js";

export type { PackageImporter } from "./public-types.js";

export const importPackage: PackageImporter = (packageName, load) => load();

/** `@opentelemetry/api` alone: enough to trace into a TracerProvider the host registered itself. */
export async function loadOtelApi(importer: PackageImporter = importPackage): Promise<OtelApi> {
  return importOptional("@opentelemetry/api", NEEDED_FOR, () => importer("@opentelemetry/api", () => import("@opentelemetry/api")), OTLP_PACKAGES);
}

/** Everything OTLP/HTTP export needs. */
export async function loadOtlpPackages(importer: PackageImporter = importPackage): Promise<OtlpPackages> {
  const api = await loadOtelApi(importer);
  const sdk = await importOptional("@opentelemetry/sdk-trace-base", NEEDED_FOR, () => importer("@opentelemetry/sdk-trace-base", () => import("@opentelemetry/sdk-trace-base")), OTLP_PACKAGES);
  const resources = await importOptional("@opentelemetry/resources", NEEDED_FOR, () => importer("@opentelemetry/resources", () => import("@opentelemetry/resources")), OTLP_PACKAGES);
  const exporter = await importOptional(
    "@opentelemetry/exporter-trace-otlp-http",
    NEEDED_FOR,
    () => importer("@opentelemetry/exporter-trace-otlp-http", () => import("@opentelemetry/exporter-trace-otlp-http")),
    OTLP_PACKAGES,
  );
  return { api, sdk, resources, exporter };
}
