// The floors under the gateway's forwarding path (issue #17: "why it cannot go further in Node on
// this design, then the next design to try"). Two pass-throughs with none of the gateway's work:
//
//   --mode http  the gateway's design and nothing else: a node:http server, the body read whole,
//                one undici Pool.dispatch per request (as src/bindings/http/forward.ts), the answer
//                relayed chunk by chunk with backpressure. No routing table, no header hygiene,
//                no decoding, no record, no log, no metrics. What this does per request is the
//                floor of the current design: the gateway cannot cost less than it.
//   --mode net   the next design's ceiling: node:net sockets, each client connection pinned to
//                one upstream connection, request heads rewritten (/agents/<name> stripped) with
//                a minimal Content-Length framer, response bytes piped back unparsed. Not an HTTP
//                proxy anyone should ship (no chunked requests, no pipelining checks, one agent
//                connection per client); what it measures is what moving the bytes costs Node.
//
//   node bench/servers/floor-proxy.mjs --mode http|net --port N --route name=http://127.0.0.1:P [...]
import http from 'node:http';
import net from 'node:net';
import { Pool } from 'undici';
import { serveUntilParentGoes, childArgs } from '../lib/serve-child.mjs';

const usage = 'usage: floor-proxy.mjs --mode http|net --port N --route name=url [--route ...]';
const args = childArgs(usage, { mode: { type: 'string' }, route: { type: 'string', multiple: true, default: [] } });
const routes = new Map(args.route.map((r) => r.split(/=(.*)/s).slice(0, 2)));
if (!args.port || routes.size === 0 || !['http', 'net'].includes(args.mode)) {
  console.error(usage);
  process.exit(2);
}

/** `/agents/<name>/<rest>` → [the agent's URL, `/<rest>`], or null. */
function route(target) {
  const m = /^\/agents\/([^/?]+)(.*)$/s.exec(target);
  const url = m && routes.get(m[1]);
  if (!url) return null;
  const base = new URL(url);
  return [base, base.pathname.replace(/\/$/, '') + (m[2] || '/')];
}

const HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'host', 'te', 'upgrade']);

function httpFloor() {
  const pools = new Map();
  const poolFor = (url) => {
    let p = pools.get(url.origin);
    // As many connections as the gateway's stream pool allows (agents.{name}.streamConnections):
    // an open SSE stream holds its connection, so a small cap would queue streams, not measure them.
    if (!p) pools.set(url.origin, (p = new Pool(url.origin, { connections: 10_000, pipelining: 1 })));
    return p;
  };
  return http.createServer((req, res) => {
    const found = route(req.url ?? '');
    if (!found) return void res.writeHead(404).end();
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const headers = [];
      const raw = req.rawHeaders;
      for (let i = 0; i < raw.length; i += 2) if (!HOP.has(raw[i].toLowerCase())) headers.push(raw[i], raw[i + 1]);
      const body = chunks.length ? Buffer.concat(chunks) : null;
      poolFor(found[0]).dispatch({ path: found[1], method: req.method, headers, body }, relay(res));
    });
  });
}

/**
 * A minimal undici dispatch handler: headers, each chunk as it comes (paused on backpressure).
 * A client that leaves aborts the agent's request, as the gateway does (src/bindings/http/forward.ts):
 * otherwise a paused response would hold its pooled connection forever.
 */
function relay(res) {
  let controller;
  res.on('close', () => {
    if (!res.writableFinished) controller?.abort(new Error('client went away'));
  });
  return {
    onRequestStart(c) {
      controller = c;
    },
    onResponseStart(c, status, headers) {
      const out = [];
      for (const [k, v] of Object.entries(headers)) if (!HOP.has(k)) out.push(k, v);
      res.writeHead(status, out);
    },
    onResponseData(c, chunk) {
      if (!res.write(chunk)) {
        c.pause();
        res.once('drain', () => c.resume());
      }
    },
    onResponseEnd() {
      res.end();
    },
    onResponseError(c, err) {
      if (!res.headersSent) res.writeHead(502);
      res.destroy(err);
    },
  };
}

/** Each client connection gets its own agent connection; request heads are rewritten in flight. */
function netFloor() {
  return net.createServer({ noDelay: true }, (client) => {
    let upstream = null;
    let upstreamOrigin = '';
    let pending = Buffer.alloc(0);
    let bodyLeft = 0;
    client.on('data', (data) => {
      pending = pending.length ? Buffer.concat([pending, data]) : data;
      while (pending.length) {
        if (bodyLeft > 0) {
          const n = Math.min(bodyLeft, pending.length);
          upstream.write(n === pending.length ? pending : pending.subarray(0, n));
          bodyLeft -= n;
          pending = pending.subarray(n);
          continue;
        }
        const end = pending.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = pending.toString('latin1', 0, end);
        pending = pending.subarray(end + 4);
        const next = rewriteHead(head);
        if (!next) return void client.end('HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n');
        // Clients here do not pipeline, so a request for another agent comes after the last answer.
        if (upstream && upstreamOrigin !== next.url.origin) {
          upstream.unpipe(client);
          upstream.destroy();
          upstream = null;
        }
        upstreamOrigin = next.url.origin;
        if (!upstream || upstream.destroyed) upstream = connect(next.url, client);
        upstream.write(next.head);
        bodyLeft = next.length;
      }
    });
    client.on('error', () => upstream?.destroy());
    client.on('close', () => upstream?.destroy());
  });
}

function connect(url, client) {
  const s = net.connect({ host: url.hostname, port: Number(url.port), noDelay: true });
  // The agent may close an idle or well-used connection: the next request opens another.
  s.pipe(client, { end: false });
  s.on('error', () => client.destroy());
  return s;
}

/** The head with the path rewritten, its Content-Length, and the agent it goes to; null if unrouted. */
function rewriteHead(head) {
  const lineEnd = head.indexOf('\r\n');
  const [method, target, version] = head.slice(0, lineEnd).split(' ');
  const found = route(target);
  if (!found) return null;
  const m = /\r\ncontent-length:\s*(\d+)/i.exec(head);
  const rest = head.slice(lineEnd);
  return { url: found[0], head: `${method} ${found[1]} ${version}${rest}\r\n\r\n`, length: m ? Number(m[1]) : 0 };
}

const server = args.mode === 'http' ? httpFloor() : netFloor();
if (server instanceof http.Server) {
  server.keepAliveTimeout = 65_000;
  server.requestTimeout = 0;
}
serveUntilParentGoes(server, { port: args.port, name: `floor-proxy (${args.mode})` });
