#!/usr/bin/env node
/**
 * a2a-gateway --config FILE [--host H] [--port N]   run the gateway (--host/--port: the traffic
 *                                                    listener; the admin one is `admin.listen`)
 * a2a-gateway check-config FILE                      validate a config; exit 0 (valid) or 1
 * a2a-gateway --version                              print the version (package.json's)
 *
 * SIGHUP and `POST /admin/reload` re-read FILE (src/reload/from-file.ts); SIGTERM/SIGINT drain.
 */
import cluster from 'node:cluster';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfigFile } from './config/load.js';
import { startGateway, type RunningGateway } from './gateway/gateway.js';
import { reloadFromFile, serialised } from './reload/from-file.js';
import { refusedReport } from './reload/report.js';
import { ListenError } from './transport/listen.js';
import type { GatewayConfig } from './config/schema.js';
import { runPrimary, workerCount } from './cluster/primary.js';
import { runWorker } from './cluster/worker.js';
import { GATEWAY_VERSION } from './version.js';

const USAGE = `usage:
  a2a-gateway --config FILE [--host HOST] [--port PORT]   run the gateway
  a2a-gateway check-config FILE                           validate a config file (exit 0 or 1)
  a2a-gateway --version                                   print the version`;

function fail(message: string, code = 1): never {
  process.stderr.write(`a2a-gateway: ${message}\n`);
  process.exit(code);
}

function load(file: string): GatewayConfig {
  try {
    return loadConfigFile(file);
  } catch (err) {
    if (err instanceof ConfigError) fail(err.message);
    throw err;
  }
}

async function main(argv: string[]): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        config: { type: 'string', short: 'c' },
        host: { type: 'string' },
        port: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
      },
    });
  } catch (err) {
    fail(`${(err as Error).message}\n${USAGE}`, 2);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  // The bare version, so scripts and image builds can compare it with package.json's.
  if (values.version) {
    process.stdout.write(`${GATEWAY_VERSION}\n`);
    return;
  }
  if (positionals[0] === 'check-config') {
    const file = positionals[1] ?? values.config;
    if (!file) fail(`check-config needs a FILE\n${USAGE}`, 2);
    const config = load(file);
    process.stdout.write(
      `${file}: valid (${Object.keys(config.agents).length} agents: ${Object.keys(config.agents).join(', ')})\n`,
    );
    return;
  }
  if (positionals.length > 0) fail(`unknown command "${positionals[0]}"\n${USAGE}`, 2);
  if (!values.config) fail(`--config FILE is required\n${USAGE}`, 2);

  const file = values.config;
  const port = values.port === undefined ? undefined : Number(values.port);
  if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65_535))
    fail(`--port must be 0–65535, got "${values.port}"`, 2);
  // The command line overrides the file's traffic listener, at start-up and on every reload.
  const overrides = (config: GatewayConfig) => {
    if (values.host) config.listen.host = values.host;
    if (port !== undefined) config.listen.port = port;
  };
  const config = load(file);
  overrides(config);
  const startFailed = (err: Error) => fail(err instanceof ListenError ? err.message : `cannot start: ${err.message}`);
  // `workers` > 1 (src/cluster/): this process forks the workers, which re-run this CLI.
  if (cluster.isWorker) return runWorker(config, startFailed, (gateway) => reloadFromFile(file, gateway, overrides));
  if (workerCount(config.workers) > 1) return runPrimary(config, workerCount(config.workers));
  // The admin listener may take a reload before startGateway has returned.
  const started: { gateway?: RunningGateway } = {};
  const reload = serialised(() =>
    started.gateway ? reloadFromFile(file, started.gateway, overrides) : refusedReport(['the gateway is starting']),
  );
  const gateway = await startGateway(config, { env: process.env, reload }).catch(startFailed);
  started.gateway = gateway;
  process.on('SIGHUP', () => void reload());
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) {
      process.stderr.write(`a2a-gateway: ${signal} again, exiting now\n`);
      process.exit(1);
    }
    stopping = true;
    void gateway.close().then(() => process.exit(0));
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

void main(process.argv.slice(2));
