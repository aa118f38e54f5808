// A loopback OTLP/HTTP sink for the "tracing exporter on" gateway variant: accepts trace
// exports on POST /v1/traces (JSON or protobuf), answers 200 with an empty success, and only
// counts them (GET /stats → {requests, bytes, spans}; spans are counted in JSON exports, by their
// "spanId" fields). It is the collector's stand-in, not measured.
//
//   node bench/servers/otlp-sink.mjs --port N
//
// Exits when its stdin closes (the harness died) or on SIGTERM.
import http from 'node:http';
import { serveUntilParentGoes, portArg } from '../lib/serve-child.mjs';

const port = portArg('usage: otlp-sink.mjs --port N');

const stats = { requests: 0, bytes: 0, spans: 0, byPath: {} };
const SPAN_ID = Buffer.from('"spanId":');

function countSpans(body) {
  let n = 0;
  for (let i = body.indexOf(SPAN_ID); i !== -1; i = body.indexOf(SPAN_ID, i + SPAN_ID.length)) n++;
  return n;
}

const server = http.createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/stats') {
    const body = JSON.stringify(stats);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
    return;
  }
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    stats.requests++;
    stats.bytes += body.length;
    stats.byPath[req.url] = (stats.byPath[req.url] ?? 0) + 1;
    const json = (req.headers['content-type'] ?? '').startsWith('application/json');
    // Links carry a spanId too, but the gateway's spans have none.
    if (json) stats.spans += countSpans(body);
    res.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' });
    res.end(json ? '{}' : undefined);
  });
});
server.keepAliveTimeout = 65_000;
serveUntilParentGoes(server, { port, name: 'otlp-sink' });
