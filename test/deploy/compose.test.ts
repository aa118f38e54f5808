/**
 * docker-compose.yml (docs/deploying.md). No Docker engine runs here, so the file is checked
 * piece by piece: the services and their ports, every host file it mounts, the gateway config
 * it mounts (valid, fronting the demo fleet service), the Prometheus config (parsed, and by
 * promtool when it is installed) scraping the gateway's admin port with the shared token, and
 * the Grafana provisioning pointing at that Prometheus and the dashboard.
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { parseConfig } from '../../src/config/load.js';
import { ROOT } from './manifests.js';

type Loose = Record<string, any>;
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const compose = parse(read('docker-compose.yml')) as Loose;
const services = compose.services as Record<string, Loose>;

/** `host:container[:mode]` bind mounts of a service, as [host path, container path]. */
function binds(service: Loose): Array<[string, string]> {
  return ((service.volumes ?? []) as string[])
    .map((v) => v.split(':'))
    .filter(([host]) => host!.startsWith('./'))
    .map(([host, target]) => [host!.slice(2), target!]);
}

/** The container path a host file is mounted at in a service. */
function mountOf(service: Loose, host: string): string {
  const found = binds(service).find(([h]) => h === host);
  if (!found) throw new Error(`${host} is not mounted`);
  return found[1];
}

function gatewayConfig() {
  const file = mountOf(services['gateway']!, 'deploy/compose/gateway.yaml');
  expect(services['gateway']!.entrypoint.join(' ')).toContain(`--config ${file}`);
  const token = read(compose.secrets.admin_token.file.slice(2)).trim();
  return { config: parseConfig(read('deploy/compose/gateway.yaml'), 'gateway.yaml', { ADMIN_TOKEN: token }), token };
}

describe('docker-compose.yml', () => {
  it('runs the gateway, the demo fleet, Redis, Prometheus and Grafana', () => {
    expect(Object.keys(services).sort()).toEqual(['demo-fleet', 'gateway', 'grafana', 'prometheus', 'redis']);
    expect(services['gateway']!.build).toBe('.');
    expect(services['redis']!.image).toMatch(/^redis:7/);
    expect(services['prometheus']!.image).toMatch(/^prom\/prometheus/);
    expect(services['grafana']!.image).toMatch(/^grafana\/grafana/);
  });

  it('publishes traffic on 8080 and keeps admin, Prometheus and Grafana on loopback', () => {
    expect(services['gateway']!.ports).toEqual(['8080:8080', '127.0.0.1:9464:9464']);
    for (const name of ['prometheus', 'grafana'])
      for (const port of services[name]!.ports as string[]) expect(port, name).toMatch(/^127\.0\.0\.1:/);
  });

  it('publishes no Redis port: without a password it is for the compose network only', () => {
    const redis = services['redis']!;
    expect(redis.ports).toBeUndefined();
    expect(redis.network_mode).toBeUndefined(); // `host` would put it on the host's ports after all
    expect(redis.command.join(' ')).not.toContain('--requirepass');
    expect(redis.expose).toEqual(['6379']);
  });

  it('keeps the gateway’s shared state in the compose Redis', () => {
    const { config } = gatewayConfig();
    expect(config.state.store).toBe('redis');
    expect(new URL(config.state.redis!.url).hostname).toBe('redis');
    expect(services['gateway']!.depends_on).toContain('redis');
  });

  it('mounts only host files that exist in the repository', () => {
    const mounted = Object.values(services).flatMap((s) => binds(s).map(([host]) => host));
    expect(mounted.length).toBeGreaterThanOrEqual(6);
    const secrets = Object.values(compose.secrets as Record<string, { file: string }>).map((s) => s.file.slice(2));
    expect(secrets).toEqual(['deploy/compose/admin-token']);
    for (const host of [...mounted, ...secrets]) expect(existsSync(join(ROOT, host)), host).toBe(true);
  });

  it('gives the gateway a valid config fronting the demo fleet, with the admin listener open to Prometheus', () => {
    const { config, token } = gatewayConfig();
    expect(token.length).toBeGreaterThanOrEqual(16);
    expect(config.listen).toEqual({ host: '0.0.0.0', port: 8080 });
    expect(config.admin.listen).toEqual({ host: '0.0.0.0', port: 9464 });
    expect(config.admin.token).toBe(token);
    const fleetPorts = (services['demo-fleet']!.expose as string[]).map(Number);
    for (const agent of Object.values(config.agents)) {
      const url = new URL(agent.url);
      expect(url.hostname).toBe('demo-fleet');
      expect(fleetPorts).toContain(Number(url.port));
    }
    // The fleet service starts the fleet the demo image carries (the Dockerfile's `demo` target:
    // the gateway's image has no demo), on all interfaces, at those ports.
    expect(services['demo-fleet']!.build).toEqual({ context: '.', target: 'demo' });
    expect(read('Dockerfile')).toMatch(/^FROM \S+ AS demo$/m);
    const fleet = services['demo-fleet']!.entrypoint.join(' ');
    expect(fleet).toContain('/app/dist/demo/fleet.js');
    expect(fleet).toMatch(/host: '0\.0\.0\.0', basePort: 9101/);
    expect(existsSync(join(ROOT, 'src/demo/fleet.ts'))).toBe(true);
  });

  it('has Prometheus scrape the admin port with the token the gateway reads, and load the alert rules', () => {
    const prometheus = services['prometheus']!;
    const configPath = mountOf(prometheus, 'deploy/compose/prometheus.yml');
    expect(prometheus.command).toContain(`--config.file=${configPath}`);
    const config = parse(read('deploy/compose/prometheus.yml')) as Loose;
    const { config: gateway } = gatewayConfig();
    const job = (config.scrape_configs as Loose[]).find((j) => j.job_name === 'a2a-gateway')!;
    expect(job.metrics_path).toBe(gateway.metrics.path);
    expect(job.static_configs[0].targets).toEqual([`gateway:${gateway.admin.listen.port}`]);
    // The token file is the secret the gateway's entrypoint reads into ADMIN_TOKEN.
    expect(job.authorization).toEqual({ type: 'Bearer', credentials_file: '/run/secrets/admin_token' });
    expect(prometheus.secrets).toContain('admin_token');
    expect(services['gateway']!.secrets).toContain('admin_token');
    expect(services['gateway']!.entrypoint.join(' ')).toContain('ADMIN_TOKEN="$$(cat /run/secrets/admin_token)"');
    expect(config.rule_files).toEqual([mountOf(prometheus, 'dashboards/a2a-alerts.yml')]);
  });

  it('passes promtool check config, where promtool is installed', () => {
    const promtool = spawnSync('promtool', ['--version'], { encoding: 'utf8' });
    if (promtool.error) return; // .ci/run installs prometheus (and promtool with it)
    // The container paths, moved to a scratch directory promtool can read.
    const dir = mkdtempSync(join(tmpdir(), 'a2a-compose-prom-'));
    const config = read('deploy/compose/prometheus.yml')
      .replaceAll('/run/secrets/admin_token', join(dir, 'token'))
      .replaceAll('/etc/prometheus/rules/a2a-alerts.yml', join(ROOT, 'dashboards/a2a-alerts.yml'));
    writeFileSync(join(dir, 'token'), read('deploy/compose/admin-token'));
    writeFileSync(join(dir, 'prometheus.yml'), config);
    const run = spawnSync('promtool', ['check', 'config', join(dir, 'prometheus.yml')], { encoding: 'utf8' });
    expect(run.status, run.stdout + run.stderr).toBe(0);
  });

  it('provisions Grafana with that Prometheus and the dashboard', () => {
    const grafana = services['grafana']!;
    const datasources = parse(read('deploy/compose/grafana/provisioning/datasources/prometheus.yml')) as Loose;
    expect(mountOf(grafana, 'deploy/compose/grafana/provisioning/datasources/prometheus.yml')).toMatch(
      /^\/etc\/grafana\/provisioning\/datasources\//,
    );
    expect(datasources.datasources[0]).toMatchObject({
      type: 'prometheus',
      url: 'http://prometheus:9090',
      isDefault: true,
    });
    const providers = parse(read('deploy/compose/grafana/provisioning/dashboards/a2a-gateway.yml')) as Loose;
    expect(mountOf(grafana, 'deploy/compose/grafana/provisioning/dashboards/a2a-gateway.yml')).toMatch(
      /^\/etc\/grafana\/provisioning\/dashboards\//,
    );
    const dashboardAt = mountOf(grafana, 'dashboards/a2a-gateway.json');
    expect(dashboardAt.startsWith(`${providers.providers[0].options.path}/`)).toBe(true);
    expect(JSON.parse(read('dashboards/a2a-gateway.json')).uid).toBe('a2a-gateway');
  });
});
