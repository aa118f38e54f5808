/**
 * One answer to "is this a blocking send" on every binding: the same SendMessage written as
 * JSON-RPC, HTTP+JSON and gRPC, classified by the request decoders (src/a2a/request.ts) and
 * decided by rescueDecision, gives the same decision — for 1.0 and 0.3, each version's own flag
 * (returnImmediately, blocking) true, false and absent, a new message or a follow-up, and an
 * `A2A-Version` header that is absent, agrees, or names the other version. The body is read in
 * the version it is written in (wire-reference §5.1, §6.2, §6.3), whatever the header says.
 */
import { describe, expect, it } from 'vitest';
import { createRequestDecoder, type RequestFacts } from '../../src/a2a/request.js';
import type { ProtocolVersion } from '../../src/a2a/operations.js';
import { rescueDecision } from '../../src/rescue/decision.js';
import { frame, message03, message1, requestBytes, V03, V1 } from '../a2a/grpc/sdk-wire.js';

type Flag = true | false | undefined;
interface Case {
  readonly version: ProtocolVersion;
  /** 1.0 returnImmediately, 0.3 blocking; undefined: no configuration at all. */
  readonly flag: Flag;
  readonly followUp: boolean;
  readonly header: 'none' | 'same' | 'other';
}

const other = (v: ProtocolVersion): ProtocolVersion => (v === '1.0' ? '0.3' : '1.0');
const headersOf = (c: Case): Record<string, string> =>
  c.header === 'none' ? {} : { 'a2a-version': c.header === 'same' ? c.version : other(c.version) };

function decode(method: string, path: string, headers: Record<string, string>, body: Uint8Array): RequestFacts {
  const decoder = createRequestDecoder(
    { method, path, query: '', headers },
    { maxBytes: 64 * 1024, restBasePaths: ['/a2a/rest'] },
  );
  decoder.push(body);
  return decoder.end();
}

/** The request message and configuration in JSON (wire-reference §1.1, §6.3). */
function jsonParams(c: Case): Record<string, unknown> {
  const taskId = c.followUp ? { taskId: 'task-1' } : {};
  const message =
    c.version === '1.0'
      ? { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'hi' }], ...taskId }
      : { kind: 'message', messageId: 'm-1', role: 'user', parts: [{ kind: 'text', text: 'hi' }], ...taskId };
  if (c.flag === undefined) return { message };
  const key = c.version === '1.0' ? 'returnImmediately' : 'blocking';
  return { message, configuration: { [key]: c.flag } };
}

function jsonrpc(c: Case): RequestFacts {
  const method = c.version === '1.0' ? 'SendMessage' : 'message/send';
  const body = JSON.stringify({ jsonrpc: '2.0', id: 'r-1', method, params: jsonParams(c) });
  const json = { 'content-type': 'application/json', ...headersOf(c) };
  return decode('POST', '/a2a/jsonrpc', json, new TextEncoder().encode(body));
}

function rest(c: Case): RequestFacts {
  // 0.3 REST routes are under `/v1/` (wire-reference §6.2).
  const path = c.version === '1.0' ? '/a2a/rest/message:send' : '/a2a/rest/v1/message:send';
  const json = { 'content-type': 'application/json', ...headersOf(c) };
  return decode('POST', path, json, new TextEncoder().encode(JSON.stringify(jsonParams(c))));
}

function grpc(c: Case): RequestFacts {
  const taskId = c.followUp ? { taskId: 'task-1' } : {};
  const bytes =
    c.version === '1.0'
      ? requestBytes(V1.sendMessage!, {
          message: message1(taskId),
          ...(c.flag === undefined ? {} : { configuration: { acceptedOutputModes: [], returnImmediately: c.flag } }),
        })
      : requestBytes(V03.sendMessage!, {
          request: message03(taskId),
          ...(c.flag === undefined
            ? {}
            : { configuration: { acceptedOutputModes: [], historyLength: 0, blocking: c.flag } }),
        });
  const rpc = c.version === '1.0' ? V1.sendMessage! : V03.sendMessage!;
  return decode('POST', rpc.path, { 'content-type': 'application/grpc', ...headersOf(c) }, frame(bytes));
}

/** What the spec says the agent does: 1.0 blocks unless returnImmediately, 0.3 unless blocking false. */
const blocks = (c: Case): boolean => (c.version === '1.0' ? c.flag !== true : c.flag !== false);

const CASES: Case[] = [];
for (const version of ['1.0', '0.3'] as const)
  for (const flag of [true, false, undefined] as const)
    for (const followUp of [false, true])
      for (const header of ['none', 'same', 'other'] as const) CASES.push({ version, flag, followUp, header });

const ON = { enabled: true };
const label = (c: Case) =>
  `${c.version}, ${c.version === '1.0' ? 'returnImmediately' : 'blocking'} ${String(c.flag)}, ` +
  `${c.followUp ? 'follow-up' : 'new message'}, A2A-Version ${c.header}`;

describe('rescueDecision: one answer on every binding', () => {
  it.each(CASES.map((c) => [label(c), c] as const))('%s', (_name, c) => {
    const decided = [jsonrpc(c), rest(c), grpc(c)].map((facts) => rescueDecision(facts, ON));
    const expected = blocks(c) ? { version: c.version, followUp: c.followUp } : undefined;
    for (const [i, binding] of (['jsonrpc', 'rest', 'grpc'] as const).entries()) {
      const d = decided[i];
      expect(d && { version: d.version, followUp: d.followUp }, binding).toEqual(expected);
      if (d) expect(d.binding).toBe(binding);
    }
  });

  it('a 0.3 method name under A2A-Version 1.0 with blocking false is not rescued (it reads `blocking`)', () => {
    const facts = jsonrpc({ version: '0.3', flag: false, followUp: false, header: 'other' });
    expect(facts).toMatchObject({ version: '1.0', wireVersion: '0.3', blocking: false });
    expect(rescueDecision(facts, ON)).toBeUndefined();
  });

  it('takes nothing from an agent without the rescue, nor a streaming send', () => {
    const facts = jsonrpc({ version: '1.0', flag: undefined, followUp: false, header: 'same' });
    expect(rescueDecision(facts, ON)).toMatchObject({ binding: 'jsonrpc', jsonrpcId: 'r-1' });
    expect(rescueDecision(facts, { enabled: false })).toBeUndefined();
    expect(rescueDecision({ ...facts, operation: 'SendStreamingMessage', blocking: undefined }, ON)).toBeUndefined();
    expect(rescueDecision(undefined, ON)).toBeUndefined();
  });
});
