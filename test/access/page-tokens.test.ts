/**
 * ListTasks page tokens (src/access/page-tokens.ts, page-token-request.ts): sealing binds a token
 * to one agent and one caller under one key, and the request swap puts the agent's token in every
 * place an agent reads one while every other byte stays as the caller sent it.
 */
import { describe, expect, it } from 'vitest';
import { BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import { PAGE_TOKEN_KEY_ENV, PageTokens, newPageTokenKey, pageTokenKey } from '../../src/access/page-tokens.js';
import {
  grpcWithPageToken,
  jsonRpcWithPageToken,
  restTargetWithPageToken,
} from '../../src/access/page-token-request.js';
import { encodeGrpcFrame } from '../../src/codec/grpc-frames.js';

const AGENT_TOKEN = Buffer.from('1767225600000|3f1c9a4e-task').toString('base64');
const tokens = new PageTokens(pageTokenKey('a-secret-of-at-least-thirty-two-characters', {}));

describe('sealed page tokens', () => {
  it('open to the agent’s token for the same agent and caller only', () => {
    const sealed = tokens.seal(AGENT_TOKEN, 'x', 'alice');
    expect(sealed).not.toContain(AGENT_TOKEN);
    expect(tokens.open(sealed, 'x', 'alice')).toBe(AGENT_TOKEN);
    expect(tokens.open(sealed, 'x', 'bob')).toBeUndefined();
    expect(tokens.open(sealed, 'y', 'alice')).toBeUndefined();
    // The binding is not fooled by moving a separator between the two names.
    expect(tokens.open(tokens.seal(AGENT_TOKEN, 'a', 'bc'), 'ab', 'c')).toBeUndefined();
  });

  it('differ each time (a fresh IV), and refuse an altered, truncated or foreign token', () => {
    const sealed = tokens.seal(AGENT_TOKEN, 'x', 'alice');
    expect(tokens.seal(AGENT_TOKEN, 'x', 'alice')).not.toBe(sealed);
    const bytes = Buffer.from(sealed, 'base64url');
    bytes[20] = bytes[20]! ^ 1;
    expect(tokens.open(bytes.toString('base64url'), 'x', 'alice')).toBeUndefined();
    expect(tokens.open(sealed.slice(0, 20), 'x', 'alice')).toBeUndefined();
    expect(tokens.open(AGENT_TOKEN, 'x', 'alice')).toBeUndefined();
    expect(tokens.open(`${sealed}=`, 'x', 'alice')).toBeUndefined();
    expect(tokens.open('', 'x', 'alice')).toBeUndefined();
  });

  it('open under the same secret anywhere (replicas), not under another key', () => {
    const sealed = tokens.seal(AGENT_TOKEN, 'x', 'alice');
    const replica = new PageTokens(pageTokenKey('a-secret-of-at-least-thirty-two-characters', {}));
    expect(replica.open(sealed, 'x', 'alice')).toBe(AGENT_TOKEN);
    const other = new PageTokens(pageTokenKey('another-secret-of-thirty-two-characters!', {}));
    expect(other.open(sealed, 'x', 'alice')).toBeUndefined();
  });

  it('without a secret: the key a cluster primary hands its workers, else one per process', () => {
    const shared = newPageTokenKey();
    const env = { [PAGE_TOKEN_KEY_ENV]: shared };
    const worker1 = new PageTokens(pageTokenKey(undefined, env));
    const worker2 = new PageTokens(pageTokenKey(undefined, env));
    expect(worker2.open(worker1.seal('t', 'x', 'alice'), 'x', 'alice')).toBe('t');
    expect(pageTokenKey(undefined, {})).toEqual(pageTokenKey(undefined, {})); // reloads keep it
    expect(pageTokenKey(undefined, { [PAGE_TOKEN_KEY_ENV]: 'not hex' })).toEqual(pageTokenKey(undefined, {}));
  });
});

describe('the agent’s token in the request', () => {
  it('JSON-RPC: both spellings replaced, every other byte (big numbers, spacing, order) kept', () => {
    const body = `{ "jsonrpc":"2.0", "id": 12345678901234567890,"method":"ListTasks",
      "params": {"pageSize": 2, "pageToken": "SEALED", "page_token":"SEALED", "x": 1e400} }`;
    const out = Buffer.from(jsonRpcWithPageToken(Buffer.from(body), 'agent"token')!).toString('utf8');
    expect(out).toBe(
      body
        .replace('"pageToken": "SEALED"', '"pageToken": "agent\\"token"')
        .replace('"page_token":"SEALED"', '"page_token":"agent\\"token"'),
    );
    expect(jsonRpcWithPageToken(Buffer.from('{"params":'), 't')).toBeUndefined();
  });

  it('REST: every page-token parameter gets the token, the rest of the target as it was', () => {
    const target = '/a2a/rest/tasks?pageSize=2&pageToken=SEALED&status=TASK_STATE_WORKING&page%5Ftoken=SEALED&x=a+b';
    expect(restTargetWithPageToken(target, 'ab/c+=')).toBe(
      '/a2a/rest/tasks?pageSize=2&pageToken=ab%2Fc%2B%3D&status=TASK_STATE_WORKING&page%5Ftoken=ab%2Fc%2B%3D&x=a+b',
    );
    expect(restTargetWithPageToken('/a2a/rest/tasks', 't')).toBe('/a2a/rest/tasks');
  });

  it('gRPC: page_token (field 5) replaced in place, the other fields and the frame length right', () => {
    const message = new BinaryWriter()
      .tag(4, WireType.Varint)
      .int32(2)
      .tag(5, WireType.LengthDelimited)
      .string('SEALED')
      .tag(6, WireType.Varint)
      .int32(3)
      .finish();
    const out = grpcWithPageToken(encodeGrpcFrame(message), 'agent-token')!;
    const expected = new BinaryWriter()
      .tag(4, WireType.Varint)
      .int32(2)
      .tag(5, WireType.LengthDelimited)
      .string('agent-token')
      .tag(6, WireType.Varint)
      .int32(3)
      .finish();
    expect(Buffer.from(out)).toEqual(Buffer.from(encodeGrpcFrame(expected)));
    const compressed = encodeGrpcFrame(message);
    compressed[0] = 1;
    expect(grpcWithPageToken(compressed, 't')).toBeUndefined();
  });
});
