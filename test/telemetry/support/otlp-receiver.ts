/**
 * A minimal OTLP/HTTP receiver on loopback: accepts JSON and protobuf export requests on /v1/traces
 * (https://opentelemetry.io/docs/specs/otlp/#otlphttp), gzipped or not, and keeps the spans, flattened.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { spansFromProtobuf } from './otlp-protobuf.js';

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** OTLP SpanKind: 2 SERVER, 3 CLIENT. */
  kind: number;
  startNs: bigint;
  endNs: bigint;
  attributes: Record<string, unknown>;
  events: Array<{ name: string; timeNs: bigint; attributes: Record<string, unknown> }>;
  /** OTLP StatusCode: 0 unset, 1 ok, 2 error. */
  status: { code: number; message?: string };
  resource: Record<string, unknown>;
  scope: string;
}

export interface OtlpReceiver {
  /** Base URL, for OTEL_EXPORTER_OTLP_ENDPOINT. */
  readonly url: string;
  readonly spans: ReceivedSpan[];
  /** Requests seen: path, content type, and headers. */
  readonly requests: Array<{
    path: string;
    contentType: string | undefined;
    headers: Record<string, string | string[] | undefined>;
  }>;
  close(): Promise<void>;
}

type AnyValue = {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
  arrayValue?: { values?: AnyValue[] };
};
type KeyValue = { key: string; value: AnyValue };

function value(v: AnyValue): unknown {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.arrayValue) return (v.arrayValue.values ?? []).map(value);
  return undefined;
}

const attrs = (list: KeyValue[] | undefined) => Object.fromEntries((list ?? []).map((kv) => [kv.key, value(kv.value)]));

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const requests: OtlpReceiver['requests'] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const body = req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw;
      requests.push({ path: req.url ?? '', contentType: req.headers['content-type'], headers: req.headers });
      const type = req.headers['content-type'] ?? '';
      if (
        req.method !== 'POST' ||
        req.url !== '/v1/traces' ||
        !(type.startsWith('application/json') || type.startsWith('application/x-protobuf'))
      ) {
        res.writeHead(415).end();
        return;
      }
      if (type.startsWith('application/x-protobuf')) {
        spans.push(...spansFromProtobuf(body));
        res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
        return;
      }
      const json = JSON.parse(body.toString('utf8')) as { resourceSpans?: any[] };
      for (const rs of json.resourceSpans ?? []) {
        for (const ss of rs.scopeSpans ?? []) {
          for (const s of ss.spans ?? []) {
            spans.push({
              traceId: s.traceId,
              spanId: s.spanId,
              parentSpanId: s.parentSpanId ?? '',
              name: s.name,
              kind: s.kind,
              startNs: BigInt(s.startTimeUnixNano),
              endNs: BigInt(s.endTimeUnixNano),
              attributes: attrs(s.attributes),
              events: (s.events ?? []).map((e: any) => ({
                name: e.name,
                timeNs: BigInt(e.timeUnixNano),
                attributes: attrs(e.attributes),
              })),
              status: { code: s.status?.code ?? 0, message: s.status?.message },
              resource: attrs(rs.resource?.attributes),
              scope: ss.scope?.name ?? '',
            });
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
