/** Reading a prom-client registry in tests. */
import type { Registry } from 'prom-client';

export interface Sample {
  name: string;
  labels: Record<string, string | number>;
  value: number;
}

export async function samples(registry: Registry, prefix = 'a2a_'): Promise<Sample[]> {
  const out: Sample[] = [];
  for (const metric of await registry.getMetricsAsJSON()) {
    if (!metric.name.startsWith(prefix)) continue;
    for (const v of metric.values)
      out.push({
        name: (v as { metricName?: string }).metricName ?? metric.name,
        labels: v.labels as Sample['labels'],
        value: v.value,
      });
  }
  return out;
}

/** The value of the one sample of `name` whose labels include `labels` (undefined if none). */
export async function valueOf(
  registry: Registry,
  name: string,
  labels: Record<string, string> = {},
): Promise<number | undefined> {
  const hits = (await samples(registry)).filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => String(s.labels[k]) === v),
  );
  if (hits.length > 1) throw new Error(`${hits.length} series of ${name} match ${JSON.stringify(labels)}`);
  return hits[0]?.value;
}

/** Every value each label takes across the a2a_ families. */
export async function labelValues(registry: Registry): Promise<Map<string, Set<string>>> {
  const out = new Map<string, Set<string>>();
  for (const s of await samples(registry)) {
    for (const [k, v] of Object.entries(s.labels)) {
      if (k === 'le') continue;
      let set = out.get(k);
      if (!set) out.set(k, (set = new Set()));
      set.add(String(v));
    }
  }
  return out;
}
