/**
 * Real gRPC message bytes from the official SDK's generated codecs: @a2a-js/sdk 1.3.0
 * `A2AService` (lf.a2a.v1, docs/proto/a2a-v1.0.0.proto) and its compat `LegacyA2AService`
 * (a2a.v1, docs/proto/a2a-v0.3.0.proto). The ts-proto encoders write `undefined` strings as
 * "undefined", so every value starts from the decoder's defaults.
 */
import { LegacyA2AService } from '@a2a-js/sdk/compat/v0_3/server/grpc';
import { A2AService } from '@a2a-js/sdk/server/grpc';
import { encodeGrpcFrame } from '../../../src/codec/grpc-frames.js';
import { concatBytes } from '../../../src/a2a/grpc/proto-read.js';

export interface SdkRpc {
  readonly path: string;
  readonly responseStream: boolean;
  requestSerialize(value: never): Buffer;
  requestDeserialize(bytes: Buffer): unknown;
  responseSerialize(value: never): Buffer;
  responseDeserialize(bytes: Buffer): unknown;
}

export const V1 = A2AService as unknown as Readonly<Record<string, SdkRpc>>;
export const V03 = LegacyA2AService as unknown as Readonly<Record<string, SdkRpc>>;

type Obj = Record<string, unknown>;

export function requestBytes(rpc: SdkRpc, value: Obj): Uint8Array {
  const defaults = rpc.requestDeserialize(Buffer.alloc(0)) as Obj;
  return new Uint8Array(rpc.requestSerialize({ ...defaults, ...value } as never));
}

export function responseBytes(rpc: SdkRpc, value: Obj): Uint8Array {
  const defaults = rpc.responseDeserialize(Buffer.alloc(0)) as Obj;
  return new Uint8Array(rpc.responseSerialize({ ...defaults, ...value } as never));
}

export const frame = (message: Uint8Array): Uint8Array => encodeGrpcFrame(message);

export const concat = (...parts: Uint8Array[]): Uint8Array => concatBytes(parts);

// 1.0 messages (docs/proto/a2a-v1.0.0.proto)
export const part1 = (text: string): Obj => ({
  content: { $case: 'text', value: text },
  metadata: undefined,
  filename: '',
  mediaType: '',
});
export const message1 = (over: Obj = {}): Obj => ({
  messageId: 'm-1',
  contextId: '',
  taskId: '',
  role: 1,
  parts: [part1('hi')],
  extensions: [],
  referenceTaskIds: [],
  ...over,
});
export const artifact1 = (id: string): Obj => ({
  artifactId: id,
  name: '',
  description: '',
  parts: [part1('x')],
  extensions: [],
});
export const task1 = (id: string, state: number, over: Obj = {}): Obj => ({
  id,
  contextId: 'ctx-1',
  status: { state, message: undefined, timestamp: undefined },
  artifacts: [],
  history: [],
  ...over,
});
export const pushConfig1 = (over: Obj = {}): Obj => ({ tenant: '', id: '', taskId: '', url: '', token: '', ...over });

// 0.3 messages (docs/proto/a2a-v0.3.0.proto)
export const message03 = (over: Obj = {}): Obj => ({
  messageId: 'm-1',
  contextId: '',
  taskId: '',
  role: 1,
  content: [{ part: { $case: 'text', value: 'hi' } }],
  extensions: [],
  ...over,
});
export const task03 = (id: string, state: number, over: Obj = {}): Obj => ({
  id,
  contextId: 'ctx-1',
  status: { state, update: undefined, timestamp: undefined },
  artifacts: [],
  history: [],
  ...over,
});
export const artifact03 = (id: string): Obj => ({
  artifactId: id,
  name: '',
  description: '',
  parts: [{ part: { $case: 'text', value: 'x' } }],
  extensions: [],
});
export const pushConfig03 = (over: Obj = {}): Obj => ({ id: '', url: '', token: '', ...over });
