import { describe, expect, it } from 'vitest';
import { createRequestDecoder, type RequestFacts, type RequestHead } from '../../src/a2a/request.js';
import { PARSE_BUFFER_BYTES } from '../../src/codec/json-body.js';

const enc = new TextEncoder();
const V1 = { 'a2a-version': '1.0' };

function classify(head: Partial<RequestHead>, body?: unknown, maxBytes = 64 * 1024): RequestFacts {
  const decoder = createRequestDecoder(
    { method: 'POST', path: '/a2a/jsonrpc', query: '', headers: {}, ...head },
    { maxBytes, restBasePaths: ['/a2a/rest'] },
  );
  if (body !== undefined)
    decoder.push(
      typeof body === 'string'
        ? enc.encode(body)
        : body instanceof Uint8Array
          ? body
          : enc.encode(JSON.stringify(body)),
    );
  return decoder.end();
}

const rpc = (method: string, params?: unknown, id: unknown = 1) => ({ jsonrpc: '2.0', id, method, params });
const rules = (facts: RequestFacts) => facts.findings.map((f) => f.rule);

describe('JSON-RPC requests', () => {
  it("reads the push-config ids with each version's param names (wire-reference §6.3)", () => {
    const v1 = classify({ headers: V1 }, rpc('GetTaskPushNotificationConfig', { taskId: 't1', id: 'c1' }));
    expect(v1).toMatchObject({ operation: 'GetTaskPushNotificationConfig', taskId: 't1', pushConfigId: 'c1' });
    const v03 = classify({}, rpc('tasks/pushNotificationConfig/get', { id: 't1', pushNotificationConfigId: 'c1' }));
    expect(v03).toMatchObject({
      operation: 'GetTaskPushNotificationConfig',
      version: '0.3',
      taskId: 't1',
      pushConfigId: 'c1',
    });
    const list03 = classify({}, rpc('tasks/pushNotificationConfig/list', { id: 't2' }));
    expect(list03).toMatchObject({ taskId: 't2', pushConfigId: undefined });
  });

  it('reads the webhook URL of a push config and flags private targets (§13.2)', () => {
    const create = classify(
      { headers: V1 },
      rpc('CreateTaskPushNotificationConfig', { taskId: 't', url: 'http://169.254.169.254/x' }),
    );
    expect(create.pushUrl).toBe('http://169.254.169.254/x');
    expect(rules(create)).toEqual(['a2a.push-url-private']);
    const set03 = classify(
      {},
      rpc('tasks/pushNotificationConfig/set', {
        taskId: 't',
        pushNotificationConfig: { url: 'https://hooks.example.com/a' },
      }),
    );
    expect(set03).toMatchObject({ pushUrl: 'https://hooks.example.com/a', findings: [] });
  });

  it('derives blocking from returnImmediately (1.0) or blocking (0.3), defaulting to blocking (§3.2.2)', () => {
    const send = (version: Record<string, string>, configuration?: unknown) =>
      classify(
        { headers: version },
        rpc(version['a2a-version'] === '1.0' ? 'SendMessage' : 'message/send', {
          message: { messageId: 'm', parts: [] },
          configuration,
        }),
      ).blocking;
    expect(send(V1)).toBe(true);
    expect(send(V1, { returnImmediately: false })).toBe(true);
    expect(send(V1, { returnImmediately: true })).toBe(false);
    // 1.0 servers ignore the 0.3 field: still blocking.
    expect(send(V1, { blocking: false })).toBe(true);
    expect(send({}, {})).toBe(true);
    expect(send({}, { blocking: false })).toBe(false);
    expect(send({}, { returnImmediately: true })).toBe(true);
    const streaming = classify({ headers: V1 }, rpc('SendStreamingMessage', { message: { messageId: 'm' } }));
    expect(streaming.blocking).toBeUndefined();
  });

  it('reads blocking in the version the body is written in, whatever A2A-Version says (wire-reference §6.2)', () => {
    const send = (method: string, configuration: unknown, path = '/a2a/jsonrpc') =>
      classify(
        { headers: V1, path },
        path.endsWith('message:send')
          ? { message: { messageId: 'm', parts: [] }, configuration }
          : rpc(method, { message: { messageId: 'm', parts: [] }, configuration }),
      );
    // A 0.3 method name under a 1.0 header: the agent reads `blocking`, not `returnImmediately`.
    const legacy = send('message/send', { blocking: false });
    expect(legacy).toMatchObject({ version: '1.0', wireVersion: '0.3', blocking: false });
    expect(rules(legacy)).toContain('a2a.version-signals-disagree');
    expect(send('message/send', { returnImmediately: true })).toMatchObject({ wireVersion: '0.3', blocking: true });
    // The same on a 0.3 REST route (`/v1/`), and a 1.0 method name under a 0.3 header.
    expect(send('', { blocking: false }, '/a2a/rest/v1/message:send')).toMatchObject({
      wireVersion: '0.3',
      blocking: false,
    });
    const v1Under03 = classify(
      { headers: { 'a2a-version': '0.3' } },
      rpc('SendMessage', { message: { messageId: 'm', parts: [] }, configuration: { returnImmediately: true } }),
    );
    expect(v1Under03).toMatchObject({ version: '0.3', wireVersion: '1.0', blocking: false });
    // With no disagreement the two are one.
    expect(send('SendMessage', { returnImmediately: true })).toMatchObject({ version: '1.0', wireVersion: '1.0' });
  });

  it('keeps string, number and null ids apart and spots notifications', () => {
    expect(classify({ headers: V1 }, rpc('GetTask', { id: 't' }, 'a'))).toMatchObject({
      jsonrpcId: 'a',
      jsonrpcIdPresent: true,
    });
    expect(classify({ headers: V1 }, rpc('GetTask', { id: 't' }, 0))).toMatchObject({
      jsonrpcId: 0,
      jsonrpcIdPresent: true,
    });
    expect(classify({ headers: V1 }, rpc('GetTask', { id: 't' }, null))).toMatchObject({
      jsonrpcId: null,
      jsonrpcIdPresent: true,
    });
    const notification = classify({ headers: V1 }, { jsonrpc: '2.0', method: 'GetTask', params: { id: 't' } });
    expect(notification).toMatchObject({ jsonrpcId: undefined, jsonrpcIdPresent: false });
  });

  it('reads tenant, contextId and historyLength where each operation keeps them', () => {
    const list = classify({ headers: V1 }, rpc('ListTasks', { tenant: 'acme', contextId: 'c9', historyLength: 4 }));
    expect(list).toMatchObject({ operation: 'ListTasks', tenant: 'acme', contextId: 'c9', historyLength: 4 });
    const send = classify(
      { headers: V1 },
      rpc('SendMessage', {
        message: { messageId: 'm1', taskId: 't1', contextId: 'c1' },
        configuration: { historyLength: 2 },
      }),
    );
    expect(send).toMatchObject({ taskId: 't1', contextId: 'c1', messageId: 'm1', historyLength: 2 });
  });

  it('classifies an unknown method as unknown, with a finding, but still as JSON-RPC', () => {
    const facts = classify({ headers: V1 }, rpc('tasks/list', {}));
    expect(facts).toMatchObject({ binding: 'jsonrpc', operation: 'unknown', jsonrpcMethod: 'tasks/list' });
    expect(rules(facts)).toEqual(['a2a.unknown-operation']);
  });

  // The agent routes by path before it reads a body (an Express router does): a JSON-RPC body
  // posted to a REST route is that REST operation to the agent, and so to access control.
  it('classifies a JSON-RPC body on a REST route by the route, as the agent serves it', () => {
    const facts = classify({ path: '/a2a/rest/tasks/t1:cancel', headers: V1 }, rpc('GetTask', { id: 't2' }));
    expect(facts).toMatchObject({ binding: 'rest', operation: 'CancelTask', taskId: 't1' });
  });

  it('still reads a JSON-RPC body at a path that is no REST route', () => {
    const facts = classify({ path: '/a2a/jsonrpc', headers: V1 }, rpc('GetTask', { id: 't' }));
    expect(facts).toMatchObject({ binding: 'jsonrpc', operation: 'GetTask', taskId: 't' });
  });
});

describe('REST requests', () => {
  it('reads GET parameters from the query (§11.5)', () => {
    const facts = classify({
      method: 'GET',
      path: '/a2a/rest/acme/tasks',
      query: '?contextId=c%201&historyLength=3&A2A-Version=1.0',
    });
    expect(facts).toMatchObject({
      operation: 'ListTasks',
      version: '1.0',
      versionSignal: 'query',
      tenant: 'acme',
      contextId: 'c 1',
      historyLength: 3,
    });
  });

  it('reads the tenant from the path segment first, else the body (POST) or query (GET) field (§5.7, §11.5)', () => {
    const send = { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'x' }] } };
    const post = (path: string, body: unknown) => classify({ path, headers: V1 }, body).tenant;
    expect(post('/a2a/rest/acme/message:send', { ...send, tenant: 'other' })).toBe('acme');
    expect(post('/a2a/rest/message:send', { ...send, tenant: 'beta' })).toBe('beta');
    expect(post('/a2a/rest/message:send', { ...send, tenant: '' })).toBeUndefined();
    const get = (query: string) => classify({ method: 'GET', path: '/a2a/rest/tasks/t1', query, headers: V1 }).tenant;
    expect(get('tenant=gamma')).toBe('gamma');
    expect(get('')).toBeUndefined();
    // 0.3 has no tenants (wire-reference §6.6): a 0.3 body's `tenant` is not one.
    expect(classify({ path: '/a2a/rest/v1/message:send' }, { ...send, tenant: 'x' }).tenant).toBeUndefined();
  });

  it('ignores a non-numeric historyLength', () => {
    expect(
      classify({ method: 'GET', path: '/tasks/t', query: 'historyLength=lots', headers: V1 }).historyLength,
    ).toBeUndefined();
  });

  it('reads a 0.3 proto-JSON body (`request`, `content`, `pushNotification`)', () => {
    const facts = classify(
      { path: '/a2a/rest/v1/message:send' },
      {
        request: { messageId: 'm', taskId: 't', role: 'ROLE_USER', content: [{ text: 'x' }] },
        configuration: { blocking: false, pushNotification: { url: 'https://h.example/x' } },
      },
    );
    expect(facts).toMatchObject({
      version: '0.3',
      versionSignal: 'rest-path',
      messageId: 'm',
      taskId: 't',
      blocking: false,
      pushUrl: 'https://h.example/x',
    });
  });

  it('treats an empty cancel body as fine', () => {
    expect(classify({ path: '/tasks/t1:cancel', headers: V1 })).toMatchObject({
      operation: 'CancelTask',
      body: 'empty',
      malformed: false,
      findings: [],
    });
  });
});

describe('hostile request bodies', () => {
  it('a 100 MB message: ids at the start are found, memory stays bounded, the rest is partial', () => {
    const decoder = createRequestDecoder(
      { method: 'POST', path: '/a2a/jsonrpc', query: '', headers: V1 },
      { maxBytes: 256 * 1024 },
    );
    decoder.push(
      enc.encode(
        '{"jsonrpc":"2.0","method":"SendMessage","params":{"message":{"messageId":"big","taskId":"t1","role":"ROLE_USER","parts":[{"raw":"',
      ),
    );
    const block = new Uint8Array(1 << 20).fill(0x41);
    let maxHeld = 0;
    for (let i = 0; i < 100; i++) {
      decoder.push(block);
      maxHeld = Math.max(maxHeld, decoder.heldBytes);
    }
    decoder.push(enc.encode('"}]},"configuration":{"returnImmediately":true}},"id":5}'));
    const facts = decoder.end();
    expect(maxHeld).toBeLessThanOrEqual(PARSE_BUFFER_BYTES);
    expect(facts).toMatchObject({
      operation: 'SendMessage',
      messageId: 'big',
      taskId: 't1',
      partial: true,
      malformed: false,
    });
    expect(facts.bodyBytes).toBeGreaterThan(100 << 20);
    // Configuration and id come after the cap: unknown rather than guessed.
    expect(facts.blocking).toBeUndefined();
    expect(facts.jsonrpcIdPresent).toBeUndefined();
    expect(rules(facts)).toEqual(['gateway.inspect-partial']);
  });

  it('invalid JSON-RPC is operation unknown, reporting what came before the error', () => {
    const facts = classify({ headers: V1 }, '{"jsonrpc":"2.0","id":3,"method":"GetTask","params":{"id":"t9"');
    expect(facts).toMatchObject({
      binding: 'jsonrpc',
      operation: 'unknown',
      jsonrpcMethod: 'GetTask',
      jsonrpcId: 3,
      malformed: true,
    });
    expect(rules(facts)).toEqual(['a2a.invalid-json']);
  });

  it('invalid JSON on a REST route keeps the operation of the route', () => {
    const facts = classify({ path: '/message:send', headers: V1 }, '{"message":{"messageId":"m1",');
    expect(facts).toMatchObject({ binding: 'rest', operation: 'SendMessage', malformed: true, blocking: undefined });
    expect(rules(facts)).toEqual(['a2a.invalid-json']);
  });

  it('does not throw on non-UTF-8 bytes', () => {
    const body = new Uint8Array([
      ...enc.encode('{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"t'),
      0xff,
      0xfe,
      ...enc.encode('"}}'),
    ]);
    expect(classify({ headers: V1 }, body)).toMatchObject({
      operation: 'GetTask',
      taskId: 't\ufffd\ufffd',
      malformed: false,
    });
  });

  it('survives deep nesting, small (JSON.parse) and big (scanner)', () => {
    const deep = (n: number) =>
      `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"metadata":${'['.repeat(n)}${']'.repeat(n)},"message":{"messageId":"m"}}}`;
    expect(classify({ headers: V1 }, deep(5_000))).toMatchObject({
      operation: 'SendMessage',
      messageId: 'm',
      malformed: false,
    });
    expect(classify({ headers: V1 }, deep(500_000), 4 << 20)).toMatchObject({
      operation: 'SendMessage',
      messageId: 'm',
      malformed: false,
      partial: false,
    });
  });

  it('a JSON body that is no object is no JSON-RPC', () => {
    expect(classify({ headers: V1 }, '"jsonrpc"')).toMatchObject({ binding: 'unknown', operation: 'unknown' });
    // An array is a JSON-RPC batch whatever its elements (JSON-RPC 2.0 §6: `[1]` is an invalid batch).
    expect(classify({ headers: V1 }, '[1,2]')).toMatchObject({ binding: 'jsonrpc', jsonrpcBatch: true });
    expect(classify({ headers: V1 }, 'null')).toMatchObject({ binding: 'unknown' });
  });

  it('never throws on random bytes', () => {
    for (let seed = 1; seed < 200; seed++) {
      const bytes = new Uint8Array(64).map((_, i) => (seed * 31 + i * 17) & 0xff);
      expect(() => classify({ headers: { 'a2a-version': String.fromCharCode(seed) } }, bytes)).not.toThrow();
    }
  });
});

describe('compressed bodies', () => {
  it('are not read: facts from the head only, marked partial', () => {
    const decoder = createRequestDecoder(
      { method: 'POST', path: '/a2a/rest/message:send', query: '', headers: { ...V1, 'content-encoding': 'gzip' } },
      { maxBytes: 1024 },
    );
    decoder.push(new Uint8Array([0x1f, 0x8b, 8, 0, 0, 0]));
    const facts = decoder.end();
    expect(facts).toMatchObject({
      operation: 'SendMessage',
      binding: 'rest',
      partial: true,
      malformed: false,
      bodyBytes: 6,
    });
    expect(facts.findings).toEqual([{ rule: 'gateway.inspect-partial', count: 1, detail: 'request body is gzip' }]);
    const identity = classify(
      { path: '/message:send', headers: { ...V1, 'content-encoding': 'identity' } },
      { message: { messageId: 'm' } },
    );
    expect(identity).toMatchObject({ messageId: 'm', partial: false });
  });
});

describe('JSON-RPC batches (issue #29)', () => {
  it('any array posted where JSON-RPC goes is a batch, its elements JSON-RPC or not', () => {
    for (const body of [[rpc('GetTask', { id: 't' })], [1, rpc('GetTask')], []]) {
      const facts = classify({ headers: V1 }, body);
      expect(facts).toMatchObject({ binding: 'jsonrpc', operation: 'unknown', jsonrpcBatch: true });
      expect(rules(facts)).toContain('a2a.jsonrpc-batch');
    }
  });

  it('a batch cut at the read-ahead is still a batch', () => {
    const big = [rpc('SendMessage', { message: { parts: [{ text: 'x'.repeat(200 * 1024) }] } }), rpc('GetTask')];
    const facts = classify({ headers: V1 }, big);
    expect(facts).toMatchObject({ jsonrpcBatch: true, partial: true });
  });

  it('a single request and an array on a REST route are no batch', () => {
    expect(classify({ headers: V1 }, rpc('GetTask', { id: 't' })).jsonrpcBatch).toBeUndefined();
    const rest = classify({ path: '/a2a/rest/message:send', headers: V1 }, [rpc('GetTask')]);
    expect(rest).toMatchObject({ binding: 'rest', operation: 'SendMessage' });
    expect(rest.jsonrpcBatch).toBeUndefined();
  });
});

describe('JSON-RPC batches that do not parse', () => {
  it('are no batch to refuse: the agent cannot read them either', () => {
    expect(classify({ headers: V1 }, '[{"jsonrpc":"2.0"},').jsonrpcBatch).toBeUndefined();
  });
});
