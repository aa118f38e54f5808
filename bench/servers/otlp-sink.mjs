// A loopback OTLP/HTTP sink for the "tracing exporter on" gateway variant: accepts trace
// exports on POST /v1/traces (JSON or protobuf), answers 200 with an empty success, and only
// counts them (GET /stats → {requests, bytes}). It is the collector's stand-in, not measured.
//
//   node bench/servers/otlp-sink.mjs --port N
//
// Exits when its stdin closes (the harness died) or on SIGTERM.
import http from 'node:http';
import { serveUntilParentGoes } from '../lib/serve-child.mjs';

const args = process.argv.slice(2);
const port = Number(args[args.indexOf('--port') + 1]);
if (!port) {
  console.error('usage: otlp-sink.mjs --port N');
  process.exit(2);
}

const stats = { requests: 0, bytes: 0, byPath: {} };

const server = http.createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/stats') {
    const body = JSON.stringify(stats);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
    return;
  }
  let n = 0;
  req.on('data', (c) => { n += c.length; });
  req.on('end', () => {
    stats.requests++;
    stats.bytes += n;
    stats.byPath[req.url] = (stats.byPath[req.url] ?? 0) + 1;
    const json = (req.headers['content-type'] ?? '').startsWith('application/json');
    res.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' });
    res.end(json ? '{}' : undefined);
  });
});
server.keepAliveTimeout = 65_000;
serveUntilParentGoes(server, { port, name: 'otlp-sink' });
