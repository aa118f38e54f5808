// Raw gRPC over HTTP/2 (node:http2, no gRPC library between): the exact frames a hostile or
// careless client sends, and the exact answer (headers, trailers, RST_STREAM code) it gets.
import { randomUUID } from 'node:crypto';
import { connect, type ClientHttp2Session, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http2';
import { BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import { encodeGrpcFrame, GrpcFrameReader } from '../../../src/codec/grpc-frames.js';
import { eachField, messageField, stringField } from '../../../src/a2a/grpc/proto-read.js';
import { decodeGrpcStatus, type GrpcStatus } from '../../../src/a2a/grpc/status.js';
import { getTaskRequest } from '../../../src/a2a/grpc/rescue-wire.js';

export const SERVICE = '/lf.a2a.v1.A2AService/';

/** An h2c session to 127.0.0.1:`port`, its server's SETTINGS received (or rejected) within `ms`. */
export function h2(port: number, ms = 3000): Promise<ClientHttp2Session> {
  return new Promise((resolve, reject) => {
    const session = connect(`http://127.0.0.1:${port}`);
    const timer = setTimeout(() => reject(new Error(`deadline: h2 connect took more than ${ms} ms`)), ms);
    session.once('remoteSettings', () => {
      clearTimeout(timer);
      resolve(session);
    });
    session.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}

/** A 1.0 SendMessageRequest (message 2: message_id 1, role 4 = ROLE_USER, parts 5 = {text 1}). */
export function sendMessageRequest(text: string, taskId?: string): Uint8Array {
  const part = new BinaryWriter().tag(1, WireType.LengthDelimited).string(text).finish();
  const msg = new BinaryWriter().tag(1, WireType.LengthDelimited).string(randomUUID());
  if (taskId) msg.tag(3, WireType.LengthDelimited).string(taskId);
  msg.tag(4, WireType.Varint).int32(1).tag(5, WireType.LengthDelimited).bytes(part);
  return new BinaryWriter().tag(2, WireType.LengthDelimited).bytes(msg.finish()).finish();
}

export const getTask = (id: string): Uint8Array => getTaskRequest(id, '1.0');

export const frame = (message: Uint8Array): Buffer => Buffer.from(encodeGrpcFrame(message));

export interface RawGrpcReply {
  readonly headers: IncomingHttpHeaders;
  readonly trailers: IncomingHttpHeaders | undefined;
  readonly data: Buffer;
  /** The status of the trailers (or of a trailers-only answer). */
  readonly status: GrpcStatus | undefined;
  /** RST_STREAM code when the stream was reset. */
  readonly rstCode: number | undefined;
}

export interface RawGrpcOptions {
  readonly headers?: OutgoingHttpHeaders;
  /** Written and the stream ended; undefined: the caller writes (see `onStream`). */
  readonly body?: Uint8Array;
  readonly onStream?: (stream: ReturnType<ClientHttp2Session['request']>) => void;
  readonly ms?: number;
}

/** The request headers of a gRPC call to `path` as a gRPC client sends them, plus `extra`. */
export function grpcHeaders(path: string, extra: OutgoingHttpHeaders = {}): OutgoingHttpHeaders {
  return {
    ':method': 'POST',
    ':path': path,
    'content-type': 'application/grpc',
    te: 'trailers',
    'a2a-version': '1.0',
    ...extra,
  };
}

/** One call on `session`: POST `path` with gRPC headers (overridable), read to its end. */
export function rawCall(session: ClientHttp2Session, path: string, opts: RawGrpcOptions = {}): Promise<RawGrpcReply> {
  const ms = opts.ms ?? 5000;
  return new Promise((resolve, reject) => {
    const stream = session.request(grpcHeaders(path, opts.headers));
    let headers: IncomingHttpHeaders = {};
    let trailers: IncomingHttpHeaders | undefined;
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      stream.close();
      reject(new Error(`deadline: gRPC call ${path} took more than ${ms} ms`));
    }, ms);
    stream.on('response', (h, flags) => {
      headers = h;
      if (flags & 1) trailers = h; // END_STREAM: trailers-only
    });
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('trailers', (t) => (trailers = t));
    stream.on('error', () => {}); // a reset shows in rstCode
    stream.on('close', () => {
      clearTimeout(timer);
      const status = decodeGrpcStatus(trailers as Record<string, string> | undefined);
      const rstCode = stream.rstCode && stream.rstCode !== 0 ? stream.rstCode : undefined;
      resolve({ headers, trailers, data: Buffer.concat(chunks), status, rstCode });
    });
    if (opts.body) stream.end(frame(opts.body));
    opts.onStream?.(stream);
  });
}

/** Waits for `predicate` to hold, checking every 20 ms; rejects after `ms`. */
export async function eventually(predicate: () => boolean, ms: number, what: string): Promise<void> {
  const until = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > until) throw new Error(`deadline: ${what} did not happen within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const w = () => new BinaryWriter();
const str = (writer: BinaryWriter, no: number, value: string) => writer.tag(no, WireType.LengthDelimited).string(value);

/** The 1.0 request messages of the task operations, for task `id` (and push config `configId`). */
export const taskRequests = {
  GetTask: (id: string) => getTaskRequest(id, '1.0'),
  CancelTask: (id: string) => str(w(), 2, id).finish(),
  SubscribeToTask: (id: string) => str(w(), 2, id).finish(),
  GetTaskPushNotificationConfig: (id: string, configId = 'cfg-1') => str(str(w(), 2, id), 3, configId).finish(),
  DeleteTaskPushNotificationConfig: (id: string, configId = 'cfg-1') => str(str(w(), 2, id), 3, configId).finish(),
  ListTaskPushNotificationConfigs: (id: string) => str(w(), 1, id).finish(),
} as const;

export type TaskOperation = keyof typeof taskRequests;

/** A 1.0 TaskPushNotificationConfig (the CreateTaskPushNotificationConfig request). */
export function pushConfigRequest(taskId: string, url: string, configId = 'cfg-1'): Uint8Array {
  return str(str(str(w(), 2, configId), 3, taskId), 4, url).finish();
}

/** The task id of a SendMessage answer (SendMessageResponse.task 1 → Task.id 1), if it is a task. */
export function taskIdOf(data: Buffer): string | undefined {
  const messages: Uint8Array[] = [];
  new GrpcFrameReader(1 << 20).push(data, (m) => messages.push(m.slice()));
  let id: string | undefined;
  if (messages[0] === undefined) return undefined;
  eachField(messages[0], (no, wt, r) => {
    const task = no === 1 ? messageField(wt, r) : undefined;
    if (task)
      eachField(task, (n, t, rr) => {
        if (n === 1) id ??= stringField(t, rr);
      });
  });
  return id;
}
