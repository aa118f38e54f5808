/**
 * `npm start`: the demo fleet (three SDK agents on 127.0.0.1:9101–9103) behind the gateway,
 * configured by config/gateway.yaml (or the file named by A2A_GATEWAY_CONFIG). Ctrl-C stops both.
 */
import { fileURLToPath } from 'node:url';
import { loadConfigFile, ConfigError } from '../config/load.js';
import { startGateway } from '../gateway.js';
import { startDemoFleet } from './fleet.js';

const configFile =
  process.env['A2A_GATEWAY_CONFIG'] ?? fileURLToPath(new URL('../../config/gateway.yaml', import.meta.url));

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfigFile(configFile);
  } catch (err) {
    process.stderr.write(`${err instanceof ConfigError ? err.message : String(err)}\n`);
    process.exit(1);
  }
  const fleet = await startDemoFleet({ host: '127.0.0.1', basePort: 9101 });
  const gateway = await startGateway(config, { env: process.env });
  process.stderr.write(
    `\na2a-gateway is fronting the demo fleet at ${gateway.url}\n` +
      Object.keys(fleet.agents)
        .map((name) => `  ${gateway.url}/agents/${name}/\n`)
        .join('') +
      `Try: npm run demo   (fleet catalog: ${gateway.url}/agents)\n\n`,
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
