/**
 * The agent card in the caller's version (wire-reference §3, §6.5), for an agent with
 * `translate`: a 1.0 caller of a 0.3 agent gets a 1.0 card, a 0.3 caller of a 1.0 agent a 0.3
 * card, each listing the agent's interfaces for both versions (the gateway translates on the same
 * URLs). Interfaces, the extended-card flag, security schemes and requirements (card and skills)
 * are translated; every other member passes through. A card already in the caller's shape is
 * returned as it is. The URL rewrite (src/cards/rewrite.ts) runs on the result.
 */
import type { ProtocolVersion } from '../a2a/operations.js';
import { isGrpcBinding } from '../a2a/card-interfaces.js';
import { isObj, rest, type Obj } from './shapes.js';

export function translateCard(card: unknown, to: ProtocolVersion): unknown {
  if (!isObj(card)) return card;
  const has1 = Array.isArray(card['supportedInterfaces']);
  if (to === '1.0') return has1 ? card : cardUp(card);
  return typeof card['url'] === 'string' ? card : cardDown(card);
}

const SCHEME_KEYS: readonly (readonly [type: string, key: string])[] = [
  ['apiKey', 'apiKeySecurityScheme'],
  ['http', 'httpAuthSecurityScheme'],
  ['oauth2', 'oauth2SecurityScheme'],
  ['openIdConnect', 'openIdConnectSecurityScheme'],
  ['mutualTLS', 'mtlsSecurityScheme'],
];

function cardUp(c: Obj): Obj {
  const main = { url: c['url'], protocolBinding: c['preferredTransport'] ?? 'JSONRPC' };
  const more = Array.isArray(c['additionalInterfaces']) ? c['additionalInterfaces'].filter(isObj) : [];
  const all = [main, ...more.map((i) => ({ url: i['url'], protocolBinding: i['transport'] }))].filter(
    (i, n, list) => list.findIndex((j) => j.url === i.url && j.protocolBinding === i.protocolBinding) === n,
  );
  const out: Obj = rest(c, [
    'url',
    'preferredTransport',
    'additionalInterfaces',
    'protocolVersion',
    'supportsAuthenticatedExtendedCard',
    'security',
    'securitySchemes',
    'skills',
  ]);
  // gRPC is not translated (docs/translation.md): a gRPC interface stays at the agent's version.
  const at = (v: string) => all.filter((i) => v === '0.3' || !isGrpcBinding(i.protocolBinding));
  out['supportedInterfaces'] = ['1.0', '0.3'].flatMap((v) => at(v).map((i) => ({ ...i, protocolVersion: v })));
  const caps = isObj(c['capabilities']) ? c['capabilities'] : {};
  // `stateTransitionHistory` was removed in 1.0 (wire-reference §6.5): a 1.0 ProtoJSON reader rejects it.
  out['capabilities'] = {
    ...rest(caps, ['stateTransitionHistory']),
    extendedAgentCard: c['supportsAuthenticatedExtendedCard'] === true,
  };
  if (isObj(c['securitySchemes'])) out['securitySchemes'] = mapValues(c['securitySchemes'], schemeUp);
  if (Array.isArray(c['security'])) out['securityRequirements'] = c['security'].map(requirementUp);
  if (Array.isArray(c['skills'])) out['skills'] = c['skills'].map((s) => (isObj(s) ? skill(s, 'up') : s));
  return out;
}

function cardDown(c: Obj): Obj {
  // A 1.0 gRPC interface cannot serve a 0.3 client (gRPC is not translated): left out.
  const interfaces = (Array.isArray(c['supportedInterfaces']) ? c['supportedInterfaces'] : [])
    .filter(isObj)
    .filter((i) => !isGrpcBinding(i['protocolBinding']) || String(i['protocolVersion']).startsWith('0.3'));
  const distinct = interfaces.filter(
    (i, n) => interfaces.findIndex((j) => j['url'] === i['url'] && j['protocolBinding'] === i['protocolBinding']) === n,
  );
  const [main, ...more] = distinct;
  const caps = isObj(c['capabilities']) ? c['capabilities'] : {};
  const out: Obj = rest(c, [
    'supportedInterfaces',
    'securityRequirements',
    'securitySchemes',
    'skills',
    'capabilities',
  ]);
  out['protocolVersion'] = '0.3.0';
  out['url'] = main?.['url'] ?? '';
  out['preferredTransport'] = main?.['protocolBinding'] ?? 'JSONRPC';
  out['additionalInterfaces'] = more.map((i) => ({ url: i['url'], transport: i['protocolBinding'] }));
  out['capabilities'] = rest(caps, ['extendedAgentCard']);
  out['supportsAuthenticatedExtendedCard'] = caps['extendedAgentCard'] === true;
  if (isObj(c['securitySchemes'])) out['securitySchemes'] = mapValues(c['securitySchemes'], schemeDown);
  if (Array.isArray(c['securityRequirements'])) out['security'] = c['securityRequirements'].map(requirementDown);
  if (Array.isArray(c['skills'])) out['skills'] = c['skills'].map((s) => (isObj(s) ? skill(s, 'down') : s));
  return out;
}

function skill(s: Obj, dir: 'up' | 'down'): Obj {
  if (dir === 'up') {
    const out = rest(s, ['security']);
    if (Array.isArray(s['security'])) out['securityRequirements'] = s['security'].map(requirementUp);
    return out;
  }
  const out = rest(s, ['securityRequirements']);
  if (Array.isArray(s['securityRequirements'])) out['security'] = s['securityRequirements'].map(requirementDown);
  return out;
}

function mapValues(o: Obj, f: (v: unknown) => unknown): Obj {
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, f(v)]));
}

/** 0.3 `{type: 'apiKey', in, name}` → 1.0 `{apiKeySecurityScheme: {location, name}}`. */
function schemeUp(v: unknown): unknown {
  if (!isObj(v)) return v;
  const key = SCHEME_KEYS.find(([type]) => type === v['type'])?.[1];
  if (key === undefined) return v;
  const inner = rest(v, ['type', 'in']);
  if (v['in'] !== undefined) inner['location'] = v['in'];
  return { [key]: inner };
}

function schemeDown(v: unknown): unknown {
  if (!isObj(v)) return v;
  const found = SCHEME_KEYS.find(([, key]) => isObj(v[key]));
  if (found === undefined) return v;
  const inner = v[found[1]] as Obj;
  const out: Obj = { type: found[0], ...rest(inner, ['location']) };
  if (inner['location'] !== undefined) out['in'] = inner['location'];
  return out;
}

/** 0.3 `{name: [scopes]}` ⇔ 1.0 `{schemes: {name: {list: [scopes]}}}`. */
function requirementUp(r: unknown): unknown {
  if (!isObj(r)) return r;
  return { schemes: mapValues(r, (scopes) => ({ list: Array.isArray(scopes) ? scopes : [] })) };
}

function requirementDown(r: unknown): unknown {
  if (!isObj(r) || !isObj(r['schemes'])) return r;
  return mapValues(r['schemes'], (s) => (isObj(s) && Array.isArray(s['list']) ? s['list'] : []));
}
