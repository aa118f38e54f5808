/**
 * Serving the registry: a fetch-style handler that the admin app mounts at `metrics.path`
 * (`app.get('/metrics', metricsHandler(registry))`), so metrics live on the admin listener,
 * off the traffic port.
 */
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
