/**
 * `npm start`: the demo fleet (three SDK agents on 127.0.0.1:9101–9103) behind the gateway,
 * configured by config/gateway.yaml (or the file named by A2A_GATEWAY_CONFIG). Ctrl-C stops both.
 * It prints both listeners: traffic (the agents) and admin (what the gateway recorded).
 */
import { fileURLToPath } from 'node:url';
import { loadConfigFile, ConfigError } from '../config/load.js';
import { startGateway } from '../gateway/gateway.js';
import { ListenError } from '../transport/listen.js';
import { startDemoFleet } from './fleet.js';
import { DEFAULT_ADMIN_URL, DEFAULT_GATEWAY_URL } from './client.js';

const configFile =
  process.env['A2A_GATEWAY_CONFIG'] ?? fileURLToPath(new URL('../../config/gateway.yaml', import.meta.url));

/** What `npm run demo` needs to be told when the gateway is not on the default addresses. */
function demoArgs(gateway: { url: string; adminUrl: string }): string {
  const args = [
    ...(gateway.url === DEFAULT_GATEWAY_URL ? [] : [gateway.url]),
    ...(gateway.adminUrl === DEFAULT_ADMIN_URL ? [] : ['--admin', gateway.adminUrl]),
  ];
  return args.length ? ` -- ${args.join(' ')}` : '';
}

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfigFile(configFile);
  } catch (err) {
    process.stderr.write(`${err instanceof ConfigError ? err.message : String(err)}\n`);
    process.exit(1);
  }
  const fleet = await startDemoFleet({ host: '127.0.0.1', basePort: 9101 });
  const gateway = await startGateway(config, { env: process.env }).catch(async (err: Error) => {
    // Port 8080 or 9464 taken (another gateway?): say which, with the key to change.
    process.stderr.write(`${err instanceof ListenError ? err.message : String(err)}\n`);
    await fleet.close();
    process.exit(1);
  });
  process.stderr.write(
    `\na2a-gateway is fronting the demo fleet at ${gateway.url}\n` +
      Object.keys(fleet.agents)
        .map((name) => `  ${gateway.url}/agents/${name}/\n`)
        .join('') +
      `Operators (recorded exchanges, task stories, metrics, full catalog): ${gateway.adminUrl}\n` +
      `  ${gateway.adminUrl}/exchanges   ${gateway.metricsUrl ?? '(metrics off)'}   ${gateway.adminUrl}/agents\n` +
      `Try: npm run demo${demoArgs(gateway)}   (public catalog: ${gateway.url}/agents)\n\n`,
  );
  let stopping = false;
  const stop = async () => {
    if (stopping) process.exit(1);
    stopping = true;
    await gateway.close();
    await fleet.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}

void main();
