/**
 * Agent-card rewrite (pure). Clients call the URLs a card lists (spec §8.3.2), so every
 * interface that lives under the agent's configured URL must point at the gateway instead, or
 * traffic goes around it — and an agent behind a gateway usually advertises an address only the
 * gateway can reach (localhost, a container IP). Fields rewritten: the card's interfaces as
 * `interfacesOf` lists them (src/a2a/card-interfaces.ts; wire-reference §3, §6.5): 1.0
 * `supportedInterfaces[].url`; 0.3 `url` and `additionalInterfaces[].url`; hybrid cards (a2a-js
 * compat) carry both and get both. Interfaces elsewhere are left as
 * they are and reported. A rewritten card no longer matches its JWS `signatures` (spec §8.4), so
 * they are dropped and reported. The per-URL decision (`urlRewriter`) is shared with the byte
 * rewrite of extended cards (rewrite-bytes.ts), which must not re-serialise the agent's JSON.
 *
 * gRPC interfaces move to the gateway's gRPC address for the agent (`grpcAuthority`,
 * `host:port`), in the form the agent wrote: `host:port` (A2A HEAD §7.3) stays `host:port`, an
 * `http(s)://` URL of a GRPC interface becomes `http://` + the authority (the gateway's gRPC
 * listeners are cleartext HTTP/2). Without a gRPC route for the agent they are left as they are,
 * and reported: gRPC clients then still go around the gateway.
 */
import { interfaceField, interfacesOf, isGrpcBinding, type InterfaceWhere } from '../a2a/card-interfaces.js';
import { isHostPort } from '../a2a/url-host.js';

export interface UrlChange {
  readonly field: string;
  readonly from: string;
  readonly to: string;
}

export interface UntouchedUrl {
  readonly field: string;
  readonly url: string;
  readonly why: string;
}

export interface CardRewrite {
  readonly card: Record<string, unknown>;
  readonly changed: UrlChange[];
  readonly untouched: UntouchedUrl[];
  readonly signaturesDropped: number;
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]', '0.0.0.0', '[::]']);

function isLoopback(hostname: string): boolean {
  return LOOPBACK.has(hostname) || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

function effectivePort(url: URL): string {
  return url.port || (url.protocol === 'https:' ? '443' : '80');
}

/**
 * Where a card URL sits relative to the agent's configured base URL: the remaining path, or
 * undefined when it lives elsewhere. Loopback spellings (localhost, 127.0.0.1, 0.0.0.0, ::1) are
 * one host when the configured URL is itself on loopback: agents often advertise the address
 * they bound, not the one the gateway dials.
 */
function pathUnderBase(candidate: string, base: URL): string | undefined {
  let url: URL;
  try {
    url = new URL(candidate);
  } catch {
    return undefined;
  }
  const sameHost = url.hostname === base.hostname || (isLoopback(url.hostname) && isLoopback(base.hostname));
  if (url.protocol !== base.protocol || !sameHost || effectivePort(url) !== effectivePort(base)) return undefined;
  const basePath = base.pathname.replace(/\/+$/, '');
  if (url.pathname !== basePath && !url.pathname.startsWith(`${basePath}/`)) return undefined;
  return url.pathname.slice(basePath.length) + url.search + url.hash;
}

/** What becomes of one interface URL: where it points now, or why it stays. */
export type UrlDecision = { readonly to: string } | { readonly why: string };

/**
 * The one per-URL decision, shared by the object rewrite of public cards (`rewriteCard`) and
 * the byte rewrite of extended cards (rewrite-bytes.ts): a URL under the agent's base URL moves
 * to the same place under the gateway's public agent URL; any other stays.
 */
export function urlRewriter(
  agentUrl: string,
  publicAgentUrl: string,
  grpcAuthority?: string,
): (url: string) => UrlDecision {
  const base = new URL(agentUrl);
  const publicBase = publicAgentUrl.replace(/\/+$/, '');
  return (url) => {
    const rest = pathUnderBase(url, base);
    if (rest !== undefined) return { to: publicBase + rest };
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) return { why: 'not under the agent URL' };
    if (!isHostPort(url)) return { why: 'not an absolute http(s) URL or a gRPC host:port' };
    return grpcAuthority !== undefined ? { to: grpcAuthority } : { why: NO_GRPC_ROUTE };
  };
}

const NO_GRPC_ROUTE =
  'a gRPC address, and the gateway has no gRPC route for this agent (agents.{name}.hosts with listen.grpc, or agents.{name}.grpc.listen)';

/** A GRPC interface's http(s) URL at the gateway (see the header); `host:port` ones go through `urlRewriter`. */
function grpcUrlDecision(url: string, grpcAuthority: string | undefined): UrlDecision | undefined {
  if (!/^https?:\/\//i.test(url)) return undefined;
  return grpcAuthority !== undefined ? { to: `http://${grpcAuthority}` } : { why: NO_GRPC_ROUTE };
}

/**
 * The decision for one interface's URL, for every card form (the public card here, the extended
 * card's JSON bytes and its protobuf, rewrite-proto.ts): a GRPC interface's http(s) URL moves to
 * `http://` + the gateway's gRPC authority; any other URL goes through `urlRewriter`.
 */
export function interfaceRewriter(
  agentUrl: string,
  publicAgentUrl: string,
  grpcAuthority?: string,
): (url: string, grpc: boolean) => UrlDecision {
  const decide = urlRewriter(agentUrl, publicAgentUrl, grpcAuthority);
  return (url, grpc) => (grpc && grpcUrlDecision(url, grpcAuthority)) || decide(url);
}

export function rewriteCard(
  card: Record<string, unknown>,
  agentUrl: string,
  publicAgentUrl: string,
  /** The gateway's gRPC `host:port` for this agent; undefined: it has no gRPC route. */
  grpcAuthority?: string,
): CardRewrite {
  const urlDecision = interfaceRewriter(agentUrl, publicAgentUrl, grpcAuthority);
  const changed: UrlChange[] = [];
  const untouched: UntouchedUrl[] = [];
  const out: Record<string, unknown> = { ...card };
  for (const { url, binding, where } of interfacesOf(card)) {
    const field = interfaceField(where);
    const decision = urlDecision(url, isGrpcBinding(binding));
    if ('why' in decision) {
      untouched.push({ field, url, why: decision.why });
      continue;
    }
    changed.push({ field, from: url, to: decision.to });
    setUrl(out, card, where, decision.to);
  }

  let signaturesDropped = 0;
  if ('signatures' in out) {
    signaturesDropped = Array.isArray(out['signatures']) ? out['signatures'].length : 0;
    // Any change invalidates a JWS over the canonical card (spec §8.4, wire-reference §3).
    if (changed.length > 0) delete out['signatures'];
    else signaturesDropped = 0;
  }
  return { card: out, changed, untouched, signaturesDropped };
}

/** Puts `url` at `where` in `out`, copying the list and its entry first: `card` (the cache's) stays as it is. */
function setUrl(out: Record<string, unknown>, card: Record<string, unknown>, where: InterfaceWhere, url: string): void {
  if (where.field === 'url') {
    out['url'] = url;
    return;
  }
  const list =
    out[where.field] === card[where.field] ? [...(card[where.field] as unknown[])] : (out[where.field] as unknown[]);
  list[where.index] = { ...(list[where.index] as Record<string, unknown>), url };
  out[where.field] = list;
}
