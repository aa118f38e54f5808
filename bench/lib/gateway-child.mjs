// One gateway process for the soak and hostile-load scripts: `node dist/cli.js --config FILE`
// with the default config plus the given agents (realistic defaults: no limit raised), access
// log discarded, registered with procs.mjs so it is stopped by pid whatever happens.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { freePort, startProcess, stopProcess, waitForHttp } from './procs.mjs';
import { gatewayCli, repoDir } from './paths.mjs';
import { adminListenFor } from './admin-listen.mjs';

function baseEnv() {
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('OTEL_')));
}

/**
 * Start a gateway fronting `agents` ({name: {url, ...agent config}}). Waits for /healthz (not
 * /readyz: an agent whose card cannot be fetched keeps it unready, and that is a case here).
 */
export async function startGateway({ runDir, name = 'gateway', agents, config = {}, cli = gatewayCli }) {
  const port = await freePort();
  const file = path.join(runDir, `${name}.yaml`);
  const base = { listen: { host: '127.0.0.1', port }, ...adminListenFor(cli), agents };
  writeFileSync(file, `${JSON.stringify({ ...base, ...config }, null, 2)}\n`);
  const entry = startProcess(name, process.execPath, [cli, '--config', file], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: baseEnv(),
    cwd: repoDir,
  });
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/healthz`, { entry, timeoutMs: 20_000 });
  return {
    url,
    pid: entry.child.pid,
    entry,
    agentUrl: (agent) => `${url}/agents/${agent}`,
    get exited() {
      return entry.exited;
    },
    stop: () => stopProcess(entry, { graceMs: 5000 }),
  };
}
