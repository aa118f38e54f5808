/**
 * deploy/kubernetes/examples/ingress-nginx.yaml (docs/deploying.md "Behind a load balancer or an
 * Ingress"): the example Ingresses pass the Kubernetes schema and agree with the base they front —
 * the Service's ports by name, gRPC over h2c to the `grpc` port, and proxy timeouts and body size
 * that let the gateway answer first (the timeout rescue before the proxy's read timeout, a
 * keepalive before it, a too-large body refused by the gateway in the caller's protocol).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { parseSize } from '../../src/config/size.js';
import { find, mountedConfig, parseObjects, render, ROOT, validateObject } from './manifests.js';

const FILE = 'deploy/kubernetes/examples/ingress-nginx.yaml';
const ingresses = parseObjects(readFileSync(join(ROOT, FILE), 'utf8'), FILE);
const base = render('deploy/kubernetes/base');
const service = find(base, 'Service', 'a2a-gateway');
const { text, env } = mountedConfig(base);
const config = parseConfig(text, 'gateway.yaml', env);

const annotations = (name: string): Record<string, string> =>
  (find(ingresses, 'Ingress', name).metadata as { annotations?: Record<string, string> }).annotations ?? {};
const backendPorts = (name: string) =>
  find(ingresses, 'Ingress', name).spec.rules.flatMap((r: any) =>
    r.http.paths.map((p: any) => [p.backend.service.name, p.backend.service.port.name]),
  );

describe(FILE, () => {
  it('holds two Ingresses that pass their Kubernetes schema', () => {
    expect(ingresses.map((o) => `${o.kind} ${o.metadata.name}`)).toEqual([
      'Ingress a2a-gateway',
      'Ingress a2a-gateway-grpc',
    ]);
    for (const obj of ingresses) validateObject(obj);
  });

  it("sends HTTP to the Service's http port and gRPC (backend GRPC) to its h2c grpc port", () => {
    expect(backendPorts('a2a-gateway')).toEqual([['a2a-gateway', 'http']]);
    expect(backendPorts('a2a-gateway-grpc')).toEqual([['a2a-gateway', 'grpc']]);
    const grpc = service.spec.ports.find((p: { name: string }) => p.name === 'grpc');
    expect(grpc.appProtocol).toBe('kubernetes.io/h2c');
    expect(annotations('a2a-gateway-grpc')['nginx.ingress.kubernetes.io/backend-protocol']).toBe('GRPC');
    // The admin port is never behind the Ingress.
    expect([...backendPorts('a2a-gateway'), ...backendPorts('a2a-gateway-grpc')].flat()).not.toContain('admin');
  });

  it("reads longer than every agent's rescue deadline and keepalive, so the gateway answers first", () => {
    for (const name of ['a2a-gateway', 'a2a-gateway-grpc']) {
      const readS = Number(annotations(name)['nginx.ingress.kubernetes.io/proxy-read-timeout']);
      for (const agent of Object.values(config.agents)) {
        expect(readS * 1000).toBeGreaterThan(agent.timeoutRescue.clientTimeout);
        expect(readS * 1000).toBeGreaterThan(agent.sse.keepalive);
      }
    }
  });

  it("takes a body as large as the gateway's limits.bodyBytes, so the gateway refuses a larger one", () => {
    const nginxBytes = parseSize(
      annotations('a2a-gateway')['nginx.ingress.kubernetes.io/proxy-body-size']!.replace(/m$/, 'MiB'),
    );
    expect(nginxBytes).toBeGreaterThanOrEqual(config.limits.bodyBytes);
    expect(annotations('a2a-gateway')['nginx.ingress.kubernetes.io/proxy-buffering']).toBe('off');
  });
});
