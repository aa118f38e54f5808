/**
 * Renders the kustomizations of deploy/kubernetes with `kubectl kustomize` and validates each
 * object against the Kubernetes OpenAPI schemas (kubernetes-models) and, for the Prometheus
 * Operator's ServiceMonitor, the operator's CRD schema (@kubernetes-models/prometheus-operator).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { ConfigMap, Secret, Service } from 'kubernetes-models/v1';
import { Deployment, StatefulSet } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { Ingress, NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { PodMonitor, ServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** A rendered object, read loosely: the tests name the fields they look at. */
export type K8sObject = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
} & Record<string, any>;

type Validator = { validate(): void };
const MODELS: Record<string, (data: never) => Validator> = {
  'v1/ConfigMap': (d) => new ConfigMap(d),
  'v1/Secret': (d) => new Secret(d),
  'v1/Service': (d) => new Service(d),
  'apps/v1/Deployment': (d) => new Deployment(d),
  'apps/v1/StatefulSet': (d) => new StatefulSet(d),
  'autoscaling/v2/HorizontalPodAutoscaler': (d) => new HorizontalPodAutoscaler(d),
  'networking.k8s.io/v1/NetworkPolicy': (d) => new NetworkPolicy(d),
  'networking.k8s.io/v1/Ingress': (d) => new Ingress(d),
  'policy/v1/PodDisruptionBudget': (d) => new PodDisruptionBudget(d),
  'monitoring.coreos.com/v1/ServiceMonitor': (d) => new ServiceMonitor(d),
  'monitoring.coreos.com/v1/PodMonitor': (d) => new PodMonitor(d),
};

/** Throws, naming the object, when it breaks its kind's schema or is of a kind we cannot check. */
export function validateObject(obj: K8sObject): void {
  const model = MODELS[`${obj.apiVersion}/${obj.kind}`];
  if (!model) throw new Error(`${obj.apiVersion} ${obj.kind} ${obj.metadata?.name}: no schema to validate it against`);
  try {
    model(obj as never).validate();
  } catch (err) {
    throw new Error(`${obj.kind} ${obj.metadata?.name}: ${(err as Error).message}`);
  }
}

/** `kubectl kustomize <dir>` (relative to the repository), parsed into objects. */
export function render(dir: string): K8sObject[] {
  const run = spawnSync('kubectl', ['kustomize', join(ROOT, dir)], { encoding: 'utf8', timeout: 60_000 });
  if (run.error)
    throw new Error(`kubectl kustomize ${dir}: ${run.error.message} (is kubectl installed? .ci/run installs it)`);
  if (run.status !== 0) throw new Error(`kubectl kustomize ${dir} failed:\n${run.stderr}`);
  return parseObjects(run.stdout, dir);
}

export function parseObjects(text: string, where: string): K8sObject[] {
  return parseAllDocuments(text).map((doc, i) => {
    if (doc.errors.length) throw new Error(`${where} document ${i}: ${doc.errors[0]!.message}`);
    return doc.toJS() as K8sObject;
  });
}

export function find(objects: K8sObject[], kind: string, name?: string): K8sObject {
  const found = objects.filter((o) => o.kind === kind && (name === undefined || o.metadata.name === name));
  if (found.length !== 1) throw new Error(`expected one ${kind}${name ? ` ${name}` : ''}, found ${found.length}`);
  return found[0]!;
}

/** The Deployment's `gateway` container and its pod. */
export function gatewayContainer(objects: K8sObject[]) {
  const deployment = find(objects, 'Deployment', 'a2a-gateway');
  const container = deployment.spec.template.spec.containers.find((c: { name: string }) => c.name === 'gateway');
  if (!container) throw new Error('no container "gateway" in the Deployment');
  return { deployment, pod: deployment.spec.template.spec, container };
}

/** The gateway.yaml of the ConfigMap the Deployment mounts, parsed with the Secret's variables. */
export function mountedConfig(objects: K8sObject[]) {
  const { pod, container } = gatewayContainer(objects);
  const mount = container.volumeMounts.find((m: { mountPath: string }) => m.mountPath === '/etc/a2a-gateway');
  const volume = pod.volumes.find((v: { name: string }) => v.name === mount?.name);
  const configMap = find(objects, 'ConfigMap', volume?.configMap?.name);
  const secretName = container.envFrom?.[0]?.secretRef?.name;
  const secret = find(objects, 'Secret', secretName);
  // The pod's environment: the Secret's keys (envFrom; placeholder values) and the container's `env`.
  const secretEnv = Object.fromEntries(
    Object.keys(secret.stringData ?? secret.data).map((k) => [k, `${k.toLowerCase()}-0123456789abcdef`]),
  );
  const own = (container.env ?? []) as Array<{ name: string; value?: string }>;
  const env = { ...secretEnv, ...Object.fromEntries(own.map((e) => [e.name, e.value ?? ''])) };
  return { text: configMap.data['gateway.yaml'] as string, env, secretEnv, secret };
}
