/**
 * The gRPC binding and routing by host (docs/configuration.md "gRPC" and "Routing by host"):
 * `listen.grpc` (the shared HTTP/2 listener), per agent `hosts` (routed by `Host` / `:authority`,
 * path as is) and `grpc` (the agent's gRPC address, a port of its own), and `limits.grpc` (what
 * one HTTP/2 client may send and hold open, principle 19).
 */
import { z } from 'zod';
import { duration, size } from './fields.js';
import { isHostPort } from '../a2a/url-host.js';

const port = z.number().int().min(0).max(65_535);

/** The shared gRPC listener (h2c); absent: no gRPC listener but the agents' own `grpc.listen`. */
export const grpcListenSchema = z
  .object({
    /** Default: `listen.host`. */
    host: z.string().min(1).optional(),
    port,
  })
  .strict();

/**
 * A hostname as a client puts it in `Host` or `:authority`, without the port. Lower-cased; a
 * trailing dot (the absolute form) is dropped, as the router drops it from requests.
 */
const hostname = z
  .string()
  .transform((h) => h.toLowerCase().replace(/\.$/, ''))
  .refine(
    (h) =>
      /^(?=.{1,253}$)[a-z0-9_]([a-z0-9_-]{0,62})(\.[a-z0-9_]([a-z0-9_-]{0,62}))*$/.test(h) || /^[0-9a-f:.]+$/.test(h),
    'must be a hostname or an IP address, without scheme, port or path (e.g. reviewer.agents.example.com)',
  );

export const agentHostsSchema = z.array(hostname).max(100).default([]);

/** An agent's gRPC address: `host:port` (A2A HEAD, §7.3) or an http(s):// URL (v1.0.1). */
export const grpcAddress = z
  .string()
  .refine(
    (a) => /^https?:\/\/[^/]+\/?$/.test(a) || isHostPort(a),
    'must be host:port or http(s)://host:port (no path: gRPC paths are fixed)',
  )
  // Userinfo is never sent on a gRPC channel, and the address shows in the catalog and logs (issue #29).
  .refine((a) => !a.includes('@'), 'must not hold credentials (user:password@): give them as agents.{name}.headers');

export const agentGrpcSchema = z
  .object({
    /** Where the agent serves gRPC; default: the GRPC interface of its card. */
    url: grpcAddress.optional(),
    /** A gRPC port of this agent's own on the gateway (when DNS names for `hosts` are not at hand). */
    listen: z
      .object({ host: z.string().min(1).optional(), port })
      .strict()
      .optional(),
    /** HTTP/2 connections to the agent; streams are multiplexed over them. */
    connections: z.number().int().min(1).max(64).default(2),
  })
  .strict()
  .prefault({});

export const grpcLimitsSchema = z
  .object({
    /** Largest gRPC message a client may send → RESOURCE_EXHAUSTED (grpc-js's own default receive cap). */
    messageBytes: size('4MiB'),
    /** Concurrent streams per client connection (HTTP/2 SETTINGS_MAX_CONCURRENT_STREAMS). */
    concurrentStreams: z.number().int().min(1).max(10_000).default(100),
    /** Memory one client connection may hold in Node's HTTP/2 session (its buffers) → the session is refused new streams. */
    sessionMemory: size('16MiB'),
    /** A client connection with no stream open for this long is closed (GOAWAY). */
    idleTimeout: duration('5m'),
    /** HTTP/2 PING on a connection whose streams have been quiet this long (0: off). */
    ping: duration('30s'),
    /**
     * Streams a client may reset on one connection before their answer started (within 1 s of
     * opening them; HTTP/2 rapid reset, CVE-2023-44487); past it, and at least half its streams,
     * the connection gets GOAWAY ENHANCE_YOUR_CALM (0: off).
     */
    prematureResets: z.number().int().min(0).max(1_000_000).default(100),
    /** The same across one client address's connections in 10 s; past it they are closed and new ones refused for 10 s (0: off). */
    prematureResetsPerClient: z.number().int().min(0).max(1_000_000).default(200),
  })
  .strict()
  .prefault({});
