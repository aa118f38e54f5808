// The pure pieces of the gRPC binding: the client's deadline header, where an agent serves gRPC
// (from config or its card), and where the gateway serves it for the agent's card.
import { describe, expect, it } from 'vitest';
import { formatGrpcTimeout, parseGrpcTimeout } from '../../src/bindings/grpc/timeout-header.js';
import { grpcInterfaces, grpcOrigin } from '../../src/bindings/grpc/agents.js';
import { gatewayGrpcAuthority, grpcPorts } from '../../src/cards/grpc-address.js';

describe('grpc-timeout', () => {
  it('reads every unit of gRPC over HTTP/2 and refuses malformed values', () => {
    expect([parseGrpcTimeout('2H'), parseGrpcTimeout('3M'), parseGrpcTimeout('4S')]).toEqual([
      7_200_000, 180_000, 4000,
    ]);
    expect([parseGrpcTimeout('250m'), parseGrpcTimeout('5000u'), parseGrpcTimeout('3000000n')]).toEqual([250, 5, 3]);
    expect(parseGrpcTimeout(['100m', '1S'])).toBe(100);
    for (const bad of [undefined, '', '1', 'm', '123456789m', '1.5S', '-1S', '10s ']) {
      expect(parseGrpcTimeout(bad), String(bad)).toBeUndefined();
    }
  });

  it('writes what is left rounded up, never past 8 digits', () => {
    expect(formatGrpcTimeout(2999.2)).toBe('3000m');
    expect(formatGrpcTimeout(-5)).toBe('0m');
    expect(formatGrpcTimeout(200_000_000)).toBe('200000S');
    expect(parseGrpcTimeout(formatGrpcTimeout(1234.5))).toBe(1235);
  });
});

describe("an agent's gRPC address", () => {
  it('host:port is cleartext HTTP/2; an http(s) URL keeps its scheme; anything else is none', () => {
    expect(grpcOrigin('127.0.0.1:50051')).toBe('http://127.0.0.1:50051');
    expect(grpcOrigin('[::1]:50051')).toBe('http://[::1]:50051');
    expect(grpcOrigin('https://agent.example.com:443')).toBe('https://agent.example.com');
    for (const bad of ['agent.example.com', 'grpc://a:1', 'a:1/path', '']) expect(grpcOrigin(bad), bad).toBeUndefined();
  });

  it('reads the GRPC interfaces of 1.0, 0.3 and hybrid cards, each with its version', () => {
    expect(
      grpcInterfaces({
        supportedInterfaces: [
          { url: 'http://a/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
          { url: 'a:1', protocolBinding: 'GRPC', protocolVersion: '1.0' },
          { url: 'a:2', protocolBinding: 'grpc', protocolVersion: '0.3' },
        ],
        url: 'b:3',
        preferredTransport: 'GRPC',
        additionalInterfaces: [
          { url: 'b:4', transport: 'GRPC' },
          { url: 'http://b', transport: 'JSONRPC' },
        ],
      }),
    ).toEqual([
      { url: 'a:1', version: '1.0' },
      { url: 'a:2', version: '0.3' },
      { url: 'b:4', version: '0.3' },
      { url: 'b:3', version: '0.3' },
    ]);
    expect(grpcInterfaces(undefined)).toEqual([]);
  });
});

describe("the gateway's gRPC address in an agent's card", () => {
  const ports = grpcPorts();
  ports.shared = 50051;
  ports.agents.set('own', 50052);

  it("an agent's own port on the host the card was asked of", () => {
    expect(gatewayGrpcAuthority('own', [], 'gw.example.com', ports)).toBe('gw.example.com:50052');
  });

  it("the shared port under the host asked of when it is one of the agent's, else its first", () => {
    expect(gatewayGrpcAuthority('r', ['a.example.com', 'b.example.com'], 'b.example.com', ports)).toBe(
      'b.example.com:50051',
    );
    expect(gatewayGrpcAuthority('r', ['a.example.com'], '127.0.0.1', ports)).toBe('a.example.com:50051');
  });

  it('none without a route: no own port, and no hosts or no shared listener', () => {
    expect(gatewayGrpcAuthority('r', [], 'gw', ports)).toBeUndefined();
    expect(gatewayGrpcAuthority('r', ['a.example.com'], 'gw', grpcPorts())).toBeUndefined();
  });
});
