import { afterAll, describe, expect, it } from 'vitest';
import { Hono } from 'hono';
import { Registry } from 'prom-client';
import { createMetrics } from '../../../src/telemetry/metrics/metrics.js';
import {
  metricsHandler,
  startMetricsListener,
  type MetricsListener,
} from '../../../src/telemetry/metrics/metrics-endpoint.js';

const registry = new Registry();
createMetrics(registry, { agents: ['reviewer'] });
let listener: MetricsListener | undefined;
afterAll(() => listener?.close());

describe('serving /metrics', () => {
  it('mounts on a hono app', async () => {
    const app = new Hono();
    app.get('/metrics', metricsHandler(registry));
    const res = await app.request('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(registry.contentType);
    const text = await res.text();
    expect(text).toContain('# TYPE a2a_requests_total counter');
    expect(text).toContain('# HELP a2a_tasks ');
    expect(text).toContain('a2a_tasks{agent="reviewer",state="TASK_STATE_WORKING"} 0');
    expect(text).toContain('nodejs_heap_size_used_bytes');
  });

  it('has its own listener when asked, answering only GET on its path', async () => {
    listener = await startMetricsListener(registry, { host: '127.0.0.1', port: 0, path: '/internal/metrics' });
    const ok = await fetch(`${listener.url}/internal/metrics`);
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain('a2a_upstream_errors_total{agent="reviewer",reason="UPSTREAM_UNREACHABLE"} 0');
    expect((await fetch(`${listener.url}/metrics`)).status).toBe(404);
    expect((await fetch(`${listener.url}/internal/metrics`, { method: 'POST' })).status).toBe(404);
  });
});
