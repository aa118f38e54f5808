// The "plain Node pass-through": what a Node team would write instead of the gateway.
// http-proxy-middleware on a bare node:http server, no inspection, keep-alive upstream agent.
//
//   node bench/servers/node-proxy.mjs --port N --route name=http://127.0.0.1:P [--route ...]
//
// Routes /agents/<name>/<rest> to <url>/<rest>, like the gateway. Exits when its stdin closes
// (the harness died) or on SIGTERM.
import http from 'node:http';
import { createProxyMiddleware } from 'http-proxy-middleware';
import { serveUntilParentGoes, childArgs } from '../lib/serve-child.mjs';

const usage = 'usage: node-proxy.mjs --port N --route name=url [--route ...]';
const { port, route } = childArgs(usage, { route: { type: 'string', multiple: true, default: [] } });
const routes = new Map(route.map((r) => r.split(/=(.*)/s).slice(0, 2)));
if (!port || routes.size === 0) {
  console.error(usage);
  process.exit(2);
}

const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity, maxFreeSockets: 256 });
const first = routes.values().next().value;

const proxy = createProxyMiddleware({
  target: first,
  agent,
  router: (req) => {
    const m = /^\/agents\/([^/]+)/.exec(req.url ?? '');
    return (m && routes.get(m[1])) || first;
  },
  pathRewrite: (p) => p.replace(/^\/agents\/[^/]+/, '') || '/',
  proxyTimeout: 600_000,
  logger: undefined,
});

const server = http.createServer((req, res) => {
  proxy(req, res, (err) => {
    if (!res.headersSent) res.writeHead(err ? 502 : 404, { 'content-type': 'text/plain' });
    res.end(err ? 'bad gateway' : 'not found');
  });
});
server.keepAliveTimeout = 65_000;
server.requestTimeout = 0;
serveUntilParentGoes(server, { port, name: 'node-proxy' });
