/**
 * Serving the registry: a fetch-style handler to mount on the control app
 * (`app.get('/metrics', metricsHandler(registry))`), and an optional separate listener for
 * deployments that keep metrics off the public port.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

/** A hono-compatible handler (it ignores its context): Prometheus text exposition format 0.0.4. */
export function metricsHandler(registry: Registry): () => Promise<Response> {
  return async () => {
    try {
      return new Response(await registry.metrics(), { status: 200, headers: { 'content-type': registry.contentType } });
    } catch {
      return new Response('metrics collection failed\n', {
        status: 500,
        headers: { 'content-type': 'text/plain; charset=utf-8' },
      });
    }
  };
}

export interface MetricsListener {
  /** `http://host:port` */
  readonly url: string;
  readonly server: Server;
  close(): Promise<void>;
}

export interface MetricsListenOptions {
  readonly host: string;
  readonly port: number;
  /** Default `/metrics`. */
  readonly path?: string;
}

/** A plain node:http listener answering GET `path` with the registry; 404 for anything else. */
export async function startMetricsListener(
  registry: Registry,
  options: MetricsListenOptions,
): Promise<MetricsListener> {
  const path = options.path ?? '/metrics';
  const server = createServer((req, res) => {
    const target = (req.url ?? '/').split('?')[0];
    if (target !== path || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end(`metrics are served at GET ${path}\n`);
      return;
    }
    registry.metrics().then(
      (text) =>
        res.writeHead(200, { 'content-type': registry.contentType }).end(req.method === 'HEAD' ? undefined : text),
      () => res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('metrics collection failed\n'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
