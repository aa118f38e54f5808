// The gRPC binding of a test peer: a @grpc/grpc-js server on loopback serving the SDK's
// A2AService (lf.a2a.v1) and, in compat mode, its 0.3 LegacyA2AService (a2a.v1), both on the
// peer's one request handler, so a task made over JSON-RPC is visible over gRPC.
// Kept in test/: @grpc/grpc-js is a devDependency (principle 16 keeps src/ free of it).
import * as grpc from '@grpc/grpc-js';
import type { AgentInterface } from '@a2a-js/sdk';
import type { A2ARequestHandler } from '@a2a-js/sdk/server';
import { A2AService, grpcService, UserBuilder } from '@a2a-js/sdk/server/grpc';
import { LegacyA2AService, legacyGrpcService } from '@a2a-js/sdk/compat/v0_3/server/grpc';
import type { RecordedRequest } from './peer-common.js';
import { encodeGrpcFrame } from '../../src/codec/grpc-frames.js';

/** A server stream as the agent wrote it: each message's frame, serialized by grpc-js itself. */
export interface RecordedStream {
  readonly path: string;
  readonly frames: Buffer[];
}

export interface GrpcHost {
  /** `127.0.0.1:<port>`: the target form grpc-js clients take (no scheme). */
  url: string;
  port: number;
  /** The 1.0 interface to put on the card. */
  iface: AgentInterface;
  /** Registers the services on `handler`; `legacy` adds the 0.3 one. */
  serve(handler: A2ARequestHandler, legacy: boolean): void;
  close(): Promise<void>;
}

/** Binds first (the card needs the port), serves once the handler exists. */
export async function startGrpcHost(requests: RecordedRequest[], streams?: RecordedStream[]): Promise<GrpcHost> {
  const server = new grpc.Server();
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  const url = `127.0.0.1:${port}`;
  return {
    url,
    port,
    iface: { url, protocolBinding: 'GRPC', tenant: '', protocolVersion: '1.0' },
    serve: (handler, legacy) => {
      const opts = { requestHandler: handler, userBuilder: UserBuilder.noAuthentication };
      server.addService(A2AService, recorded(A2AService, grpcService(opts), requests, streams));
      if (legacy) {
        server.addService(LegacyA2AService, recorded(LegacyA2AService, legacyGrpcService(opts), requests, streams));
      }
    },
    close: () => closeGrpc(server),
  };
}

type Definition = Record<string, { path: string; responseStream?: boolean; responseSerialize?: (v: never) => Buffer }>;
type Handler = (call: { metadata: grpc.Metadata; write?: (msg: unknown) => boolean }, ...rest: unknown[]) => unknown;

/** Wraps each method so the call is recorded (as `POST <method path>` + metadata) before it runs. */
function recorded<I extends object>(def: Definition, impl: I, into: RecordedRequest[], streams?: RecordedStream[]): I {
  const out: Record<string, Handler> = {};
  for (const [name, fn] of Object.entries(impl as Record<string, Handler>)) {
    const path = def[name]?.path ?? name;
    out[name] = (call, ...rest) => {
      into.push({ method: 'POST', path, headers: metadataHeaders(call.metadata) });
      if (streams && def[name]?.responseStream) recordWrites(call, path, def[name].responseSerialize!, streams);
      return fn(call, ...rest);
    };
  }
  return out as I;
}

/** Keeps the frame of every message the handler writes on a server stream. */
function recordWrites(
  call: Parameters<Handler>[0],
  path: string,
  serialize: (v: never) => Buffer,
  into: RecordedStream[],
): void {
  const frames: Buffer[] = [];
  into.push({ path, frames });
  const write = call.write!.bind(call);
  call.write = (msg: unknown) => {
    frames.push(Buffer.from(encodeGrpcFrame(serialize(msg as never))));
    return write(msg);
  };
}

function metadataHeaders(md: grpc.Metadata): RecordedRequest['headers'] {
  const out: RecordedRequest['headers'] = {};
  for (const [k, v] of Object.entries(md.getMap())) out[k] = v.toString();
  return out;
}

/** Graceful shutdown, forced after 500 ms so an open stream cannot hold close() up. */
function closeGrpc(server: grpc.Server): Promise<void> {
  return new Promise((resolve) => {
    const force = setTimeout(() => {
      server.forceShutdown();
      resolve();
    }, 500);
    server.tryShutdown(() => {
      clearTimeout(force);
      resolve();
    });
  });
}
