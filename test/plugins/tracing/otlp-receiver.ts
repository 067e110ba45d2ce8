import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** One span as an OTLP/HTTP JSON export carries it, attributes flattened to plain values. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  status: { code?: number; message?: string };
  attributes: Record<string, unknown>;
  resource: Record<string, unknown>;
  scope: string;
}

type AnyValue = { stringValue?: string; intValue?: number | string; doubleValue?: number; boolValue?: boolean; arrayValue?: { values?: AnyValue[] } };
type KeyValue = { key: string; value: AnyValue };

function plain(value: AnyValue): unknown {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(plain);
  return undefined;
}

const attributesOf = (list: KeyValue[] | undefined) => Object.fromEntries((list ?? []).map(({ key, value }) => [key, plain(value)]));

/**
 * An OTLP/HTTP collector in the test process: a plain node:http server that decodes the JSON
 * export requests (`POST /v1/traces`, `ExportTraceServiceRequest`) and keeps every span.
 */
export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  readonly requests: { path: string; contentType: string }[] = [];
  private server: Server | undefined;

  async start(): Promise<string> {
    this.server = createServer((request, response) => {
      let body = "";
      request.setEncoding("utf8");
      request.on("data", (chunk: string) => (body += chunk));
      request.on("end", () => {
        this.requests.push({ path: request.url ?? "", contentType: String(request.headers["content-type"] ?? "") });
        try {
          this.collect(JSON.parse(body));
          response.writeHead(200, { "content-type": "application/json" }).end("{}");
        } catch {
          response.writeHead(400).end();
        }
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private collect(request: { resourceSpans?: Array<{ resource?: { attributes?: KeyValue[] }; scopeSpans?: Array<{ scope?: { name?: string }; spans?: Array<Record<string, unknown>> }> }> }): void {
    for (const resourceSpans of request.resourceSpans ?? []) {
      const resource = attributesOf(resourceSpans.resource?.attributes);
      for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
        for (const span of scopeSpans.spans ?? []) {
          const parent = span.parentSpanId as string | undefined;
          this.spans.push({
            traceId: span.traceId as string,
            spanId: span.spanId as string,
            ...(parent ? { parentSpanId: parent } : {}),
            name: span.name as string,
            kind: span.kind as number,
            status: (span.status ?? {}) as ReceivedSpan["status"],
            attributes: attributesOf(span.attributes as KeyValue[] | undefined),
            resource,
            scope: scopeSpans.scope?.name ?? "",
          });
        }
      }
    }
  }
}
