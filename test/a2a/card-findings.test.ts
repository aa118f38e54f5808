import { describe, expect, it } from 'vitest';
import { cardFindings, cardInterfaceUrls } from '../../src/a2a/card-findings.js';
import { classifyHostname, classifyUrl } from '../../src/a2a/url-host.js';
import { loadCapture } from './captures.js';

const rules = (card: unknown, publicGateway: boolean) =>
  cardFindings(card, { publicGateway })
    .map((f) => f.rule)
    .sort();
const card10 = (...urls: Array<[string, string?]>) => ({
  name: 'a',
  supportedInterfaces: urls.map(([url, binding]) => ({
    url,
    protocolBinding: binding ?? 'JSONRPC',
    protocolVersion: '1.0',
  })),
});

describe('host classes (cards advertising internal addresses, §13.2)', () => {
  it.each([
    ['http://localhost:8080/x', 'loopback'],
    ['http://api.localhost/x', 'loopback'],
    ['http://127.0.0.1/', 'loopback'],
    ['http://2130706433/', 'loopback'],
    ['http://0x7f.1/', 'loopback'],
    ['http://[::1]/', 'loopback'],
    ['http://[::ffff:127.0.0.1]/', 'loopback'],
    ['http://0.0.0.0:9000/', 'unspecified'],
    ['http://[::]/', 'unspecified'],
    ['http://10.1.2.3/', 'private'],
    ['http://172.16.0.1/', 'private'],
    ['http://172.31.255.255/', 'private'],
    ['http://192.168.1.1/', 'private'],
    ['http://100.64.0.1/', 'private'],
    ['http://[fd12::1]/', 'private'],
    ['http://169.254.169.254/latest', 'link-local'],
    ['http://[fe80::1]/', 'link-local'],
    ['http://agent-a:8080/', 'internal-name'],
    ['http://agent.default.svc.cluster.local/', 'internal-name'],
    ['https://agents.example.com/a2a', 'public'],
    ['http://172.32.0.1/', 'public'],
    ['http://8.8.8.8/', 'public'],
    ['not a url', 'invalid'],
  ])('%s → %s', (url, hostClass) => {
    expect(classifyUrl(url).hostClass).toBe(hostClass);
  });

  it('an empty host is invalid', () => {
    expect(classifyHostname('')).toBe('invalid');
  });
});

describe('cardFindings', () => {
  it('reads 1.0, 0.3 and hybrid cards', () => {
    expect(
      cardInterfaceUrls({ url: 'https://a/x', additionalInterfaces: [{ url: 'https://a/y', transport: 'HTTP+JSON' }] }),
    ).toEqual([
      { url: 'https://a/x', binding: 'JSONRPC' },
      { url: 'https://a/y', binding: 'HTTP+JSON' },
    ]);
    expect(cardInterfaceUrls(null)).toEqual([]);
    expect(cardInterfaceUrls({ supportedInterfaces: [null, 7, { url: 5 }] })).toEqual([]);
  });

  it('always flags loopback and unspecified hosts', () => {
    expect(rules(card10(['http://127.0.0.1:1/a']), false)).toEqual(['card.interface-loopback']);
    expect(rules(card10(['https://0.0.0.0/a']), false)).toEqual(['card.interface-unspecified']);
  });

  it('flags private hosts and plain http only when the card goes public', () => {
    const card = card10(['http://10.0.0.5/a'], ['http://agent-b:9000/rest', 'HTTP+JSON']);
    expect(rules(card, false)).toEqual([]);
    expect(cardFindings(card, { publicGateway: true })).toEqual([
      { rule: 'card.interface-private', count: 2, detail: 'http://10.0.0.5/a' },
      { rule: 'card.interface-plain-http', count: 2, detail: 'http://10.0.0.5/a' },
    ]);
    expect(rules(card10(['https://agents.example.com/a']), true)).toEqual([]);
  });

  it('accepts gRPC host:port entries and flags unparsable URLs and cards without interfaces', () => {
    expect(rules(card10(['grpc.example.com:443', 'GRPC']), true)).toEqual([]);
    expect(rules(card10(['::nonsense::']), true)).toEqual(['card.interface-invalid-url']);
    expect(rules({ name: 'x' }, false)).toEqual(['card.no-interfaces']);
  });

  it('on the recorded cards: loopback everywhere, twice over in the hybrid one', () => {
    const v1 = JSON.parse(new TextDecoder().decode(loadCapture('v1--jsonrpc-card.http').response?.body));
    expect(cardFindings(v1, { publicGateway: true })).toEqual([
      { rule: 'card.interface-loopback', count: 2, detail: 'http://127.0.0.1:18240/a2a/jsonrpc' },
      { rule: 'card.interface-plain-http', count: 2, detail: 'http://127.0.0.1:18240/a2a/jsonrpc' },
    ]);
    const hybrid = JSON.parse(
      new TextDecoder().decode(loadCapture('v1compat--v03client-jsonrpc-card.http').response?.body),
    );
    const urls = cardInterfaceUrls(hybrid);
    expect(urls.length).toBeGreaterThan(2);
    expect(cardFindings(hybrid, { publicGateway: false })).toEqual([
      { rule: 'card.interface-loopback', count: urls.length, detail: urls[0]?.url },
    ]);
  });
});
