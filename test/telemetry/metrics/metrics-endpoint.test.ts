import { describe, expect, it } from 'vitest';
import { Hono } from 'hono';
import { Registry } from 'prom-client';
import { createMetrics } from '../../../src/telemetry/metrics/metrics.js';
import { metricsHandler } from '../../../src/telemetry/metrics/metrics-endpoint.js';

const registry = new Registry();
createMetrics(registry, { agents: ['reviewer'] });

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
});
