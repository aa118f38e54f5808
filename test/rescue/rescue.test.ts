/**
 * Timeout rescue with real SDK agents and clients. The agent's task takes 3 s; the client gives
 * up after 2 s. Straight to the agent the client gets nothing usable; through the gateway
 * (`clientTimeout: 2s`, `margin: 1s`) it gets the WORKING task with its id in time, and later
 * finds it COMPLETED by GetTask through the gateway.
 *
 * Each of the three races here is won by at least 1 s, so a loaded machine does not flip it: the
 * task outlasts the direct client's patience (3 s vs 2 s); the returnImmediately send and the
 * gateway's answer each have 1 s (the send before the deadline at 1 s, the answer within the
 * margin); the task is still WORKING when the gateway answers (1 s vs 3 s).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskState } from '@a2a-js/sdk';
import type { Task as TaskV03 } from 'a2a-sdk-v03';
import { startPeerV1 } from '../peers/peer-v1.js';
import { startPeerV03 } from '../peers/peer-v03.js';
import type { Peer } from '../peers/peer-common.js';
import {
  asBase,
  clientV03,
  clientV1,
  sendParamsV03,
  sendRequestV1,
  userMessageV03,
  userMessageV1,
  type TransportName,
} from '../peers/clients.js';
import { pollUntil, within, withDeadline } from '../peers/deadline.js';
import { asTask, stateName } from '../peers/inspect.js';
import { startTestGateway } from '../support/gateway.js';
import type { RunningGateway } from '../../src/gateway/gateway.js';
import type { Exchange } from '../../src/exchange/exchange.js';
import type { ExchangeRecord } from '../../src/exchange/record.js';

const CLIENT_GIVES_UP_MS = 2000;
const TASK_MS = 3000;
const rescue = { enabled: true, clientTimeout: `${CLIENT_GIVES_UP_MS}ms`, margin: '1s' };

let v1: Peer;
let v03: Peer;
let gateway: RunningGateway;
const records: ExchangeRecord[] = [];

beforeAll(async () => {
  [v1, v03] = await Promise.all([startPeerV1({ slowMs: TASK_MS }), startPeerV03({ slowMs: TASK_MS })]);
  gateway = await startTestGateway(
    { v1: { url: v1.url, timeoutRescue: rescue }, v03: { url: v03.url, timeoutRescue: rescue } },
    {},
    [{ onFinish: (ex: Exchange) => void records.push(ex.record) }],
  );
});
afterAll(async () => {
  await gateway?.close();
  await Promise.all([v1?.close(), v03?.close()]);
});

const TRANSPORTS: TransportName[] = ['JSONRPC', 'HTTP+JSON'];

describe('A2A 1.0 client and agent', () => {
  it.concurrent(
    `straight to the agent, a client that gives up after ${CLIENT_GIVES_UP_MS} ms gets nothing`,
    async () => {
      const client = await withDeadline(clientV1(asBase(v1.url), { transport: 'JSONRPC' }), 5000, 'card');
      await expect(
        client.sendMessage(sendRequestV1(userMessageV1('slow direct')), within(CLIENT_GIVES_UP_MS)),
      ).rejects.toThrow();
    },
  );

  it.concurrent.each(TRANSPORTS)(
    'through the gateway over %s: the WORKING task in time, COMPLETED later',
    async (transport) => {
      const client = await withDeadline(clientV1(`${gateway.url}/agents/v1/`, { transport }), 5000, 'card');
      const answer = asTask(
        await client.sendMessage(sendRequestV1(userMessageV1(`slow rescue ${transport}`)), within(CLIENT_GIVES_UP_MS)),
      );
      expect(stateName(answer.status?.state)).toBe('WORKING');
      expect(answer.id).not.toBe('');
      const record = records.find((r) => r.rescue?.taskId === answer.id)!;
      expect(record.rescue).toMatchObject({ outcome: 'deadline', strategy: 'subscribe' });
      const done = await pollUntil(
        () => client.getTask({ tenant: '', id: answer.id }, within(2000)),
        (t) => t.status?.state === TaskState.TASK_STATE_COMPLETED,
        TASK_MS + 5000,
        'completion',
        200,
      );
      expect(done.artifacts[0]?.parts).toHaveLength(2);
    },
    20_000,
  );
});

describe('A2A 0.3 client and agent', () => {
  it.concurrent(
    `straight to the agent, a client that gives up after ${CLIENT_GIVES_UP_MS} ms gets nothing`,
    async () => {
      const client = await withDeadline(clientV03(asBase(v03.url), { transport: 'JSONRPC' }), 5000, 'card');
      await expect(
        client.sendMessage(sendParamsV03(userMessageV03('slow direct')), within(CLIENT_GIVES_UP_MS)),
      ).rejects.toThrow();
    },
  );

  it.concurrent.each(TRANSPORTS)(
    'through the gateway over %s: the working task in time, completed later',
    async (transport) => {
      const client = await withDeadline(clientV03(`${gateway.url}/agents/v03/`, { transport }), 5000, 'card');
      const answer = (await client.sendMessage(
        sendParamsV03(userMessageV03(`slow rescue ${transport}`)),
        within(CLIENT_GIVES_UP_MS),
      )) as TaskV03;
      expect(answer.kind).toBe('task');
      expect(answer.status.state).toBe('working');
      const done = await pollUntil(
        () => client.getTask({ id: answer.id }, within(2000)),
        (t) => t.status.state === 'completed',
        TASK_MS + 5000,
        'completion',
        200,
      );
      expect(done.artifacts?.[0]?.parts).toHaveLength(2);
    },
    20_000,
  );
});
