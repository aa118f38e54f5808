/**
 * deploy/kubernetes (docs/deploying.md): the base and the Redis overlay render with
 * `kubectl kustomize`, every object passes its Kubernetes schema, and the pieces agree with the
 * gateway: probes on the endpoints it serves, a config its own parser accepts with the Secret's
 * variables, a termination grace longer than its drain, metrics scraped where and how it serves
 * them, the admin port closed to all but Prometheus.
 */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { find, gatewayContainer, mountedConfig, render, validateObject } from './manifests.js';

const BASE = 'deploy/kubernetes/base';
const OVERLAY = 'deploy/kubernetes/overlays/redis';
const NAME = { 'app.kubernetes.io/name': 'a2a-gateway' };

const base = render(BASE);
const overlay = render(OVERLAY);

describe.each([
  ['base', base],
  ['overlay redis', overlay],
])('kubectl kustomize %s', (_name, objects) => {
  it('renders objects that all pass their Kubernetes schema', () => {
    expect(objects.length).toBeGreaterThanOrEqual(8);
    for (const obj of objects) validateObject(obj);
  });

  it('gives every object a name label (the gateway or a part of it)', () => {
    for (const obj of objects) {
      const labels = obj.metadata.labels ?? {};
      expect(
        labels['app.kubernetes.io/name'] === 'a2a-gateway' || labels['app.kubernetes.io/part-of'] === 'a2a-gateway',
        `${obj.kind} ${obj.metadata.name}`,
      ).toBe(true);
    }
  });

  it('mounts a gateway config that the gateway accepts, with the Secret providing its variables', () => {
    const { text, env } = mountedConfig(objects);
    const config = parseConfig(text, 'gateway.yaml', env);
    expect(config.listen).toEqual({ host: '0.0.0.0', port: 8080, grpc: { port: 50051 } });
    expect(config.admin.listen).toEqual({ host: '0.0.0.0', port: 9464 });
    expect(config.admin.token).toBe(env['ADMIN_TOKEN']);
    expect(Object.keys(config.agents).length).toBeGreaterThan(0);
    // Without the Secret's variables the config is refused: the Secret is what makes it whole.
    expect(() => parseConfig(text, 'gateway.yaml', {})).toThrow(/ADMIN_TOKEN is not set/);
  });

  it('probes /readyz and /healthz on the traffic port and runs the config it mounts', () => {
    const { container } = gatewayContainer(objects);
    expect(container.readinessProbe.httpGet).toMatchObject({ path: '/readyz', port: 8080 });
    expect(container.livenessProbe.httpGet).toMatchObject({ path: '/healthz', port: 8080 });
    expect(container.args).toEqual(['--config', '/etc/a2a-gateway/gateway.yaml']);
    const ports = Object.fromEntries(
      container.ports.map((p: { name: string; containerPort: number }) => [p.name, p.containerPort]),
    );
    expect(ports).toEqual({ http: 8080, grpc: 50051, admin: 9464 });
    expect(container.resources.requests).toMatchObject({ cpu: expect.any(String), memory: expect.any(String) });
    expect(container.resources.limits.memory).toBeDefined();
  });

  it('runs as the image user, non-root, on a read-only root with no capabilities', () => {
    const { pod, container } = gatewayContainer(objects);
    expect(pod.securityContext).toMatchObject({
      runAsNonRoot: true,
      runAsUser: 1000,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(container.securityContext).toMatchObject({
      runAsNonRoot: true,
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
    });
    const tmp = container.volumeMounts.find((m: { mountPath: string }) => m.mountPath === '/tmp');
    expect(pod.volumes.find((v: { name: string }) => v.name === tmp?.name)?.emptyDir).toBeDefined();
  });

  it('gives the pod longer to stop than the preStop pause plus the gateway drain (shutdown.grace)', () => {
    const { pod, container } = gatewayContainer(objects);
    const { text, env } = mountedConfig(objects);
    const graceMs = parseConfig(text, 'gateway.yaml', env).shutdown.grace;
    const command = container.lifecycle.preStop.exec.command as string[];
    expect(command[0]).toBe('sleep');
    const pauseS = Number(command[1]);
    expect(pauseS).toBeGreaterThan(0);
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThan(graceMs / 1000 + pauseS);
  });

  it('exposes the traffic, gRPC and admin ports as http, grpc (h2c) and admin', () => {
    const service = find(objects, 'Service', 'a2a-gateway');
    expect(service.spec.selector).toMatchObject(NAME);
    const ports = service.spec.ports.map((p: { name: string; port: number }) => [p.name, p.port]);
    expect(ports).toEqual([
      ['http', 8080],
      ['grpc', 50051],
      ['admin', 9464],
    ]);
    const grpc = service.spec.ports.find((p: { name: string }) => p.name === 'grpc');
    expect(grpc.appProtocol).toBe('kubernetes.io/h2c');
  });

  it('scrapes /metrics on the admin port with the admin token from the Secret', () => {
    const monitor = find(objects, 'ServiceMonitor', 'a2a-gateway');
    const { secret } = mountedConfig(objects);
    expect(monitor.spec.selector.matchLabels).toMatchObject(NAME);
    expect(monitor.spec.endpoints).toHaveLength(1);
    expect(monitor.spec.endpoints[0]).toMatchObject({
      port: 'admin',
      path: '/metrics',
      authorization: { type: 'Bearer', credentials: { name: secret.metadata.name, key: 'ADMIN_TOKEN' } },
    });
  });

  it('admits anyone to 8080 and 50051 and only Prometheus to 9464', () => {
    const policy = find(objects, 'NetworkPolicy', 'a2a-gateway');
    expect(policy.spec.podSelector.matchLabels).toMatchObject(NAME);
    expect(policy.spec.policyTypes).toEqual(['Ingress', 'Egress']);
    const rules = policy.spec.ingress as Array<{
      from?: Array<Record<string, unknown>>;
      ports: Array<{ port: number }>;
    }>;
    const opening = (port: number) => rules.filter((r) => r.ports?.some((p) => p.port === port));
    // Every rule names its ports: none opens the admin port by leaving them out.
    for (const rule of rules) expect(rule.ports?.length).toBeGreaterThan(0);
    expect(opening(8080).some((r) => r.from === undefined)).toBe(true);
    expect(opening(50051).some((r) => r.from === undefined)).toBe(true);
    const admin = opening(9464);
    expect(admin.length).toBeGreaterThan(0);
    for (const rule of admin) {
      expect(rule.from?.length).toBeGreaterThan(0);
      for (const peer of rule.from!)
        expect(peer).toMatchObject({ podSelector: { matchLabels: { 'app.kubernetes.io/name': 'prometheus' } } });
    }
    // Egress: DNS, and the agents.
    const egress = policy.spec.egress as Array<{ ports?: Array<{ port: number }> }>;
    expect(egress.some((r) => r.ports?.some((p) => p.port === 53))).toBe(true);
  });

  it('keeps a pod through voluntary disruptions and scales on CPU', () => {
    const pdb = find(objects, 'PodDisruptionBudget', 'a2a-gateway');
    expect(pdb.spec.selector.matchLabels).toMatchObject(NAME);
    expect(pdb.spec.maxUnavailable ?? 0).toBeLessThanOrEqual(1);
    const hpa = find(objects, 'HorizontalPodAutoscaler', 'a2a-gateway');
    expect(hpa.spec.scaleTargetRef).toMatchObject({ kind: 'Deployment', name: 'a2a-gateway' });
    expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(2);
    expect(hpa.spec.maxReplicas).toBe(10);
    expect(hpa.spec.metrics).toEqual([
      { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } } },
    ]);
  });
});

describe('the Redis overlay', () => {
  it('runs three gateway pods (the autoscaler never fewer) with REDIS_URL pointing at the Redis Service', () => {
    const { deployment, container } = gatewayContainer(overlay);
    expect(deployment.spec.replicas).toBe(3);
    expect(find(overlay, 'HorizontalPodAutoscaler').spec.minReplicas).toBe(3);
    const redisUrl = container.env.find((e: { name: string }) => e.name === 'REDIS_URL')?.value as string;
    const service = find(overlay, 'Service', new URL(redisUrl).hostname);
    expect(service.spec.ports[0].port).toBe(Number(new URL(redisUrl).port));
    expect(gatewayContainer(base).deployment.spec.replicas).toBe(2);
  });

  it('adds a non-root Redis StatefulSet on a persistent volume, behind its Service', () => {
    const redis = find(overlay, 'StatefulSet');
    const pod = redis.spec.template.spec;
    expect(pod.containers[0].image).toMatch(/^redis:7/);
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true });
    expect(pod.securityContext.runAsUser).toBeGreaterThan(0);
    expect(redis.spec.volumeClaimTemplates).toHaveLength(1);
    const claim = redis.spec.volumeClaimTemplates[0].metadata.name;
    expect(pod.containers[0].volumeMounts.map((m: { name: string }) => m.name)).toContain(claim);
    expect(find(overlay, 'Service', redis.spec.serviceName).spec.selector).toEqual(redis.spec.selector.matchLabels);
  });

  it('mounts the base config plus shared state on that Redis (state.store: redis)', () => {
    const { container } = gatewayContainer(overlay);
    const redisUrl = container.env.find((e: { name: string }) => e.name === 'REDIS_URL')?.value as string;
    const mounted = mountedConfig(overlay);
    const config = parseConfig(mounted.text, 'gateway.yaml', mounted.env);
    expect(config.state).toMatchObject({ store: 'redis', redis: { url: redisUrl } });
    const baseText = mountedConfig(base);
    const baseConfig = parseConfig(baseText.text, 'gateway.yaml', baseText.env);
    expect({ ...config, state: baseConfig.state }).toEqual(baseConfig); // the rest as the base has it
    expect(() => parseConfig(mounted.text, 'gateway.yaml', mounted.secretEnv)).toThrow(/REDIS_URL is not set/);
  });
});

describe('the schema check', () => {
  it('refuses an object that breaks its schema, and a kind it has no schema for', () => {
    const deployment = structuredClone(gatewayContainer(base).deployment);
    deployment.spec.replicas = 'three';
    expect(() => validateObject(deployment)).toThrow(/replicas/);
    const monitor = structuredClone(find(base, 'ServiceMonitor'));
    delete monitor.spec.endpoints[0].authorization.credentials.key;
    expect(() => validateObject(monitor)).toThrow(/key/);
    expect(() => validateObject({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' } })).toThrow(/no schema/);
  });
});
