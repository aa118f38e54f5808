// Scenario 6: the timeout rescue's timing. A real SDK agent (the demo fleet's test-runner: every
// message is a task that completes after a fixed time) behind a gateway whose agents use the
// timeout rescue with each strategy. The client sends blocking SendMessage calls; the gateway's
// access log says, per call, how long after the task settled the client had its answer and how
// many GetTask polls it took. Measured from the gateway's own records (performance.now), so the
// load generator's clock plays no part.
import path from 'node:path';
import { writeFileSync, readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { freePort, startProcess, stopProcess, waitForHttp, httpRequest } from './procs.mjs';
import { percentile } from './stats.mjs';

export const RESCUE_STRATEGIES = ['subscribe', 'stream', 'poll'];

/**
 * @param {{ repoDir: string, gatewayCli: string, runDir: string, sends: number, taskMs: number, pollInitialMs: number, pollMaxMs: number, concurrency: number }} o
 */
export async function measureRescueTiming(o) {
  const { startDemoFleet } = await import(pathToFileURL(path.join(o.repoDir, 'dist', 'demo', 'fleet.js')).href);
  const fleet = await startDemoFleet({ host: '127.0.0.1', basePort: 0, testRunnerMs: o.taskMs });
  const port = await freePort();
  const logFile = path.join(o.runDir, 'rescue-access.log');
  const agents = RESCUE_STRATEGIES.map(
    (s) =>
      `  runner-${s}:\n    url: ${fleet.agents['test-runner']}\n    timeoutRescue: { enabled: true, clientTimeout: 30s, strategy: ${s}, pollInitial: ${o.pollInitialMs}ms, pollMax: ${o.pollMaxMs}ms }\n`,
  );
  const config = path.join(o.runDir, 'gateway-rescue.yaml');
  writeFileSync(
    config,
    `listen: { host: 127.0.0.1, port: ${port} }\nlog: { level: info }\nagents:\n${agents.join('')}`,
  );
  const { openSync } = await import('node:fs');
  const out = openSync(logFile, 'w');
  const gw = startProcess('gateway-rescue', process.execPath, [o.gatewayCli, '--config', config], {
    stdio: ['pipe', out, 'pipe'],
  });
  const base = `http://127.0.0.1:${port}`;
  const result = {
    taskMs: o.taskMs,
    pollInitialMs: o.pollInitialMs,
    pollMaxMs: o.pollMaxMs,
    sends: o.sends,
    strategies: {},
  };
  /** Per strategy: the agent's own COMPLETED timestamp → the client holding the answer (same host clock, ms). */
  const endToEnd = {};
  try {
    await waitForHttp(`${base}/readyz`, { entry: gw });
    for (const strategy of RESCUE_STRATEGIES) {
      let next = 0;
      const worker = async () => {
        while (next < o.sends) {
          const i = next++;
          const body = JSON.stringify({
            jsonrpc: '2.0',
            id: i,
            method: 'SendMessage',
            params: {
              message: {
                messageId: `bench-${strategy}-${i}`,
                role: 'ROLE_USER',
                parts: [{ text: `run the suite ${i}` }],
              },
            },
          });
          const res = await httpRequest(`${base}/agents/runner-${strategy}/a2a/jsonrpc`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
            body,
            timeoutMs: 60_000,
          });
          const answeredAt = Date.now();
          const settled = Date.parse(JSON.parse(res.body)?.result?.task?.status?.timestamp ?? '');
          if (Number.isFinite(settled)) (endToEnd[strategy] ??= []).push(Math.max(0, answeredAt - settled));
        }
      };
      await Promise.all(Array.from({ length: o.concurrency }, worker));
    }
  } finally {
    await stopProcess(gw); // SIGTERM flushes the access log
    await fleet.close();
  }
  const lines = readFileSync(logFile, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .filter((l) => l.msg === 'exchange' && l.rescue);
  for (const strategy of RESCUE_STRATEGIES) {
    const mine = lines.filter((l) => l.agent === `runner-${strategy}`);
    const delays = mine
      .map((l) => l.rescue.settleToAnswerMs)
      .filter((v) => typeof v === 'number')
      .sort((a, b) => a - b);
    const polls = mine.map((l) => l.rescue.polls);
    const outcomes = {};
    for (const l of mine) outcomes[l.rescue.outcome] = (outcomes[l.rescue.outcome] ?? 0) + 1;
    result.strategies[strategy] = {
      answered: mine.length,
      outcomes,
      settleToAnswerMs: delays.length
        ? { p50: percentile(delays, 50), p99: percentile(delays, 99), max: delays.at(-1) }
        : null,
      pollsPerTask: polls.length
        ? { mean: polls.reduce((a, b) => a + b, 0) / polls.length, max: Math.max(...polls) }
        : null,
      agentSettleToClientMs: endToEnd[strategy]?.length
        ? { p50: percentile(endToEnd[strategy], 50), max: Math.max(...endToEnd[strategy]) }
        : null,
    };
  }
  return result;
}
