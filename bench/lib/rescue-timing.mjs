// Scenario 6: the timeout rescue's timing. A real SDK agent (the demo fleet's test-runner: every
// message is a task that completes after a fixed time) behind a gateway whose agents use the
// timeout rescue with each strategy. The client sends blocking SendMessage calls; the gateway's
// access log says, per call, how long after the task settled the client had its answer and how
// many GetTask polls it took. Measured from the gateway's own records (performance.now), so the
// load generator's clock plays no part.
import path from 'node:path';
import { writeFileSync, readFileSync, openSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { freePort, startProcess, stopProcess, waitForHttp, httpRequest } from './procs.mjs';
import { percentile } from './stats.mjs';
import { adminListenFor } from './admin-listen.mjs';

export const RESCUE_STRATEGIES = ['subscribe', 'stream', 'poll'];

/** The gateway's config: one agent per strategy (`runner-<strategy>`), all the same test-runner. */
function writeConfig(o, port, testRunnerUrl) {
  const poll = `pollInitial: ${o.pollInitialMs}ms, pollMax: ${o.pollMaxMs}ms`;
  const rescue = (s) => `{ enabled: true, clientTimeout: 30s, strategy: ${s}, ${poll} }`;
  const agents = RESCUE_STRATEGIES.map(
    (s) => `  runner-${s}:\n    url: ${testRunnerUrl}\n    timeoutRescue: ${rescue(s)}\n`,
  );
  const file = path.join(o.runDir, 'gateway-rescue.yaml');
  const { admin } = adminListenFor(o.gatewayCli);
  const head = `listen: { host: 127.0.0.1, port: ${port} }\n${admin ? `admin: ${JSON.stringify(admin)}\n` : ''}`;
  writeFileSync(file, `${head}log: { level: info }\nagents:\n${agents.join('')}`);
  return file;
}

/**
 * One blocking SendMessage. Returns the time from the agent's own COMPLETED timestamp to the
 * client holding the answer (same host clock, ms), or null when the answer has no timestamp.
 */
async function sendOne(base, strategy, i) {
  const message = { messageId: `bench-${strategy}-${i}`, role: 'ROLE_USER', parts: [{ text: `run the suite ${i}` }] };
  const res = await httpRequest(`${base}/agents/runner-${strategy}/a2a/jsonrpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: i, method: 'SendMessage', params: { message } }),
    timeoutMs: 60_000,
  });
  const answeredAt = Date.now();
  const settled = Date.parse(JSON.parse(res.body)?.result?.task?.status?.timestamp ?? '');
  return Number.isFinite(settled) ? Math.max(0, answeredAt - settled) : null;
}

/** `o.sends` calls to one strategy's agent, `o.concurrency` at a time; their end-to-end times. */
async function sendAll(base, strategy, o) {
  const times = [];
  let next = 0;
  const worker = async () => {
    while (next < o.sends) {
      const ms = await sendOne(base, strategy, next++);
      if (ms !== null) times.push(ms);
    }
  };
  await Promise.all(Array.from({ length: o.concurrency }, worker));
  return times;
}

/** The access log's rescued exchanges. */
function readRescues(logFile) {
  return readFileSync(logFile, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .filter((l) => l.msg === 'exchange' && l.rescue);
}

/** One strategy's numbers: from its access-log lines and the client's end-to-end times. */
function summarise(lines, endToEnd) {
  const delays = lines
    .map((l) => l.rescue.settleToAnswerMs)
    .filter((v) => typeof v === 'number')
    .sort((a, b) => a - b);
  const polls = lines.map((l) => l.rescue.polls);
  const outcomes = {};
  for (const l of lines) outcomes[l.rescue.outcome] = (outcomes[l.rescue.outcome] ?? 0) + 1;
  return {
    answered: lines.length,
    outcomes,
    settleToAnswerMs: delays.length
      ? { p50: percentile(delays, 50), p99: percentile(delays, 99), max: delays.at(-1) }
      : null,
    pollsPerTask: polls.length
      ? { mean: polls.reduce((a, b) => a + b, 0) / polls.length, max: Math.max(...polls) }
      : null,
    agentSettleToClientMs: endToEnd?.length ? { p50: percentile(endToEnd, 50), max: Math.max(...endToEnd) } : null,
  };
}

/**
 * @param {{ repoDir: string, gatewayCli: string, runDir: string, sends: number, taskMs: number,
 *   pollInitialMs: number, pollMaxMs: number, concurrency: number }} o
 */
export async function measureRescueTiming(o) {
  const { startDemoFleet } = await import(pathToFileURL(path.join(o.repoDir, 'dist', 'demo', 'fleet.js')).href);
  const fleet = await startDemoFleet({ host: '127.0.0.1', basePort: 0, testRunnerMs: o.taskMs });
  const port = await freePort();
  const config = writeConfig(o, port, fleet.agents['test-runner']);
  const logFile = path.join(o.runDir, 'rescue-access.log');
  const gw = startProcess('gateway-rescue', process.execPath, [o.gatewayCli, '--config', config], {
    stdio: ['pipe', openSync(logFile, 'w'), 'pipe'],
  });
  const base = `http://127.0.0.1:${port}`;
  const endToEnd = {};
  try {
    await waitForHttp(`${base}/readyz`, { entry: gw });
    for (const strategy of RESCUE_STRATEGIES) endToEnd[strategy] = await sendAll(base, strategy, o);
  } finally {
    await stopProcess(gw); // SIGTERM flushes the access log
    await fleet.close();
  }
  const rescues = readRescues(logFile);
  const { taskMs, pollInitialMs, pollMaxMs, sends } = o;
  const result = { taskMs, pollInitialMs, pollMaxMs, sends, strategies: {} };
  for (const strategy of RESCUE_STRATEGIES) {
    const mine = rescues.filter((l) => l.agent === `runner-${strategy}`);
    result.strategies[strategy] = summarise(mine, endToEnd[strategy]);
  }
  return result;
}
