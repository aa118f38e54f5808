/**
 * Client authentication end to end (issue #13 item 2): the official SDK clients (1.3.0 = A2A 1.0,
 * 0.3.14 = A2A 0.3), presenting credentials through the SDKs' own AuthenticationHandler, run the
 * full scenario list through a gateway with `auth` on to real SDK agents, over JSON-RPC and
 * HTTP+JSON, with an API key as `Authorization: Bearer`, an API key as `X-API-Key` and a JWT from
 * a loopback issuer serving a real JWKS. The agent never sees the caller's credentials (unless the
 * agent entry says `auth.forward`); refusals are answered by the gateway alone (401,
 * WWW-Authenticate, an error in the caller's protocol) and reach no agent; the public card needs
 * no credential and names the gateway's schemes; the JWKS is fetched once for many calls.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DefaultAgentCardResolver } from '@a2a-js/sdk/client';
import { DefaultAgentCardResolver as DefaultAgentCardResolverV03 } from 'a2a-sdk-v03/client';
import type { Peer } from '../peers/peer-common.js';
import { sendParamsV03, sendRequestV1, userMessageV03, userMessageV1, type TransportName } from '../peers/clients.js';
import { collect, within, withDeadline } from '../peers/deadline.js';
import { asMessage } from '../peers/inspect.js';
import { sdkScenariosV03, sdkScenariosV1 } from '../peers/scenarios.js';
import {
  StaticCredential,
  authedClientV03,
  authedClientV1,
  credentialHeaders,
  type CredentialKind,
} from './support/auth-clients.js';
import { KEYS, callsTo, headerText, rawCard, rawPost, startFleet, type Fleet } from './support/fleet.js';
import { KID } from './support/issuer.js';

const STEP = 30;
const TRANSPORTS: TransportName[] = ['JSONRPC', 'HTTP+JSON'];
const CREDENTIALS: CredentialKind[] = ['bearer-key', 'x-api-key', 'jwt'];
const MATRIX = TRANSPORTS.flatMap((transport) => CREDENTIALS.map((credential) => ({ transport, credential })));

const CHALLENGE = 'Bearer realm="a2a-gateway"';
const CHALLENGE_INVALID = 'Bearer realm="a2a-gateway", error="invalid_token"';
const ERROR_INFO = 'type.googleapis.com/google.rpc.ErrorInfo';

let fleet: Fleet;
beforeAll(async () => {
  fleet = await startFleet({ stepMs: STEP });
});
afterAll(() => fleet.close());

/** The secret a suite presents: a configured key, or a token minted by the issuer. */
async function secretFor(kind: CredentialKind): Promise<string> {
  if (kind === 'bearer-key') return KEYS.planner;
  if (kind === 'x-api-key') return KEYS.opsBot;
  return fleet.issuer.sign({ sub: 'jwt-client', groups: ['team-jwt'] });
}

/** Every request the agent got since `since` is free of the caller's credentials. */
function expectNoCredentials(peer: Peer, since: number, secret: string) {
  const seen = peer.requests.slice(since);
  expect(seen.length).toBeGreaterThan(0);
  for (const r of seen) {
    const what = `${r.method} ${r.path}`;
    expect(r.headers['authorization'], what).toBeUndefined();
    expect(r.headers['x-api-key'], what).toBeUndefined();
    expect(headerText(r), what).not.toContain(secret);
  }
}

describe.each(MATRIX)('SDK 1.3.0 through the gateway over $transport with $credential', ({ transport, credential }) => {
  let secret: string;
  let since: number;
  beforeAll(async () => {
    secret = await secretFor(credential);
    since = fleet.peerV1.requests.length;
  });
  const client = () =>
    withDeadline(
      authedClientV1(fleet.base('v1'), transport, new StaticCredential(credential, async () => secret)),
      5000,
      'card resolution',
    );
  sdkScenariosV1(client, { transport, extendedCard: true });

  it('never passed the credentials on to the agent', () => {
    expectNoCredentials(fleet.peerV1, since, secret);
    expect(callsTo(fleet.peerV1).length).toBeGreaterThan(0);
  });
});

describe.each(MATRIX)(
  'SDK 0.3.14 through the gateway over $transport with $credential',
  ({ transport, credential }) => {
    let secret: string;
    let since: number;
    beforeAll(async () => {
      secret = await secretFor(credential);
      since = fleet.peerV03.requests.length;
    });
    const client = () =>
      withDeadline(
        authedClientV03(fleet.base('v03'), transport, new StaticCredential(credential, async () => secret)),
        5000,
        'card resolution',
      );
    sdkScenariosV03(client, { transport, extendedCard: true });

    it('never passed the credentials on to the agent', () => {
      expectNoCredentials(fleet.peerV03, since, secret);
      expect(callsTo(fleet.peerV03).length).toBeGreaterThan(0);
    });
  },
);

describe.each([
  { sdk: '1.3.0', agent: 'v1-fwd', peer: () => fleet.peerV1 },
  { sdk: '0.3.14', agent: 'v03-fwd', peer: () => fleet.peerV03 },
])('auth.forward: true on an agent entry, SDK $sdk', ({ sdk, agent, peer }) => {
  const question = async (kind: CredentialKind, secret: string, transport: TransportName) => {
    const auth = new StaticCredential(kind, async () => secret);
    if (sdk === '1.3.0') {
      const c = await withDeadline(authedClientV1(fleet.base(agent), transport, auth), 5000, 'card');
      asMessage(await c.sendMessage(sendRequestV1(userMessageV1('forwarded?')), within(5000)));
    } else {
      const c = await withDeadline(authedClientV03(fleet.base(agent), transport, auth), 5000, 'card');
      expect((await c.sendMessage(sendParamsV03(userMessageV03('forwarded?')), within(5000))).kind).toBe('message');
    }
  };

  it.each(TRANSPORTS)('passes Authorization on to the agent over %s', async (transport) => {
    const before = callsTo(peer()).length;
    await question('bearer-key', KEYS.planner, transport);
    const calls = callsTo(peer()).slice(before);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.headers['authorization']).toBe(`Bearer ${KEYS.planner}`);
  });

  it('passes X-API-Key on to the agent', async () => {
    const before = callsTo(peer()).length;
    await question('x-api-key', KEYS.opsBot, 'JSONRPC');
    const calls = callsTo(peer()).slice(before);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.headers['x-api-key']).toBe(KEYS.opsBot);
  });
});

// ---------------------------------------------------------------------------------------------
// Refusals, raw: exact status, headers and body, and nothing reaches the agent.

interface Shape {
  name: string;
  agent: 'v1' | 'v03';
  peer: () => Peer;
  jsonrpc: boolean;
  /** The request's JSON-RPC id (a string for 1.0, a number for 0.3, to see both echoed). */
  id: string | number | null;
  versionHeaders: Record<string, string>;
  /** Where to send, from the gateway's card. */
  url: (card: CardJson) => string;
  body: (text: string) => unknown;
}

interface CardJson {
  url?: string;
  supportedInterfaces?: { url: string; protocolBinding: string }[];
  additionalInterfaces?: { url: string; transport: string }[];
  [key: string]: unknown;
}

const v1Interface = (card: CardJson, binding: string) =>
  card.supportedInterfaces!.find((i) => i.protocolBinding === binding)!.url;
const v03Interface = (card: CardJson, transport: string) =>
  card.additionalInterfaces!.find((i) => i.transport === transport)!.url;
const messageV1 = (text: string) => ({ messageId: `raw-${Math.random()}`, role: 'ROLE_USER', parts: [{ text }] });

const SHAPES: Shape[] = [
  {
    name: 'JSON-RPC 1.0 SendMessage',
    agent: 'v1',
    peer: () => fleet.peerV1,
    jsonrpc: true,
    id: 'auth-req-7',
    versionHeaders: { 'A2A-Version': '1.0' },
    url: (card) => v1Interface(card, 'JSONRPC'),
    body: (text) => ({ jsonrpc: '2.0', id: 'auth-req-7', method: 'SendMessage', params: { message: messageV1(text) } }),
  },
  {
    name: 'JSON-RPC 0.3 message/send',
    agent: 'v03',
    peer: () => fleet.peerV03,
    jsonrpc: true,
    id: 4242,
    versionHeaders: {},
    url: (card) => v03Interface(card, 'JSONRPC'),
    body: (text) => ({
      jsonrpc: '2.0',
      id: 4242,
      method: 'message/send',
      params: {
        message: { kind: 'message', messageId: `raw-${Math.random()}`, role: 'user', parts: [{ kind: 'text', text }] },
      },
    }),
  },
  {
    name: 'REST 1.0 POST /message:send',
    agent: 'v1',
    peer: () => fleet.peerV1,
    jsonrpc: false,
    id: null,
    versionHeaders: { 'A2A-Version': '1.0' },
    url: (card) => `${v1Interface(card, 'HTTP+JSON')}/message:send`,
    body: (text) => ({ message: messageV1(text) }),
  },
  {
    name: 'REST 0.3 POST /v1/message:send',
    agent: 'v03',
    peer: () => fleet.peerV03,
    jsonrpc: false,
    id: null,
    versionHeaders: {},
    url: (card) => `${v03Interface(card, 'HTTP+JSON')}/v1/message:send`,
    body: (text) => ({ message: { messageId: `raw-${Math.random()}`, role: 'ROLE_USER', content: [{ text }] } }),
  },
];

interface Refusal {
  name: string;
  /** The credential headers (none, or a refused one) and the secret that must not be echoed. */
  present: () => Promise<{ headers: Record<string, string>; secret?: string }>;
  challenge: string;
  /** What the error message names (the refusal's fixed reason). */
  reason: string;
}

const bearer = async (token: Promise<string>) => {
  const secret = await token;
  return { headers: credentialHeaders('jwt', secret), secret };
};

const REFUSALS: Refusal[] = [
  {
    name: 'no credentials',
    present: async () => ({ headers: {} }),
    challenge: CHALLENGE,
    reason: 'authentication required',
  },
  {
    name: 'a wrong API key as Bearer',
    present: async () => ({ headers: credentialHeaders('bearer-key', KEYS.wrong), secret: KEYS.wrong }),
    challenge: CHALLENGE_INVALID,
    reason: 'invalid-key',
  },
  {
    name: 'a wrong API key as X-API-Key',
    present: async () => ({ headers: credentialHeaders('x-api-key', KEYS.wrong), secret: KEYS.wrong }),
    challenge: CHALLENGE_INVALID,
    reason: 'invalid-key',
  },
  {
    name: 'an expired JWT',
    present: () => bearer(fleet.issuer.sign({ expiresIn: -600 })),
    challenge: CHALLENGE_INVALID,
    reason: 'expired',
  },
  {
    name: 'a JWT for another audience',
    present: () => bearer(fleet.issuer.sign({ aud: 'some-other-service' })),
    challenge: CHALLENGE_INVALID,
    reason: 'invalid-audience',
  },
  {
    name: `a JWT signed by an unknown key under the trusted kid "${KID}"`,
    present: () => bearer(fleet.issuer.sign({ stranger: true })),
    challenge: CHALLENGE_INVALID,
    reason: 'invalid-signature',
  },
  {
    name: 'a JWT signed by an unknown key under an unknown kid',
    present: () => bearer(fleet.issuer.sign({ stranger: true, kid: 'not-in-the-jwks' })),
    challenge: CHALLENGE_INVALID,
    reason: 'invalid-signature',
  },
];

describe.each(SHAPES)('refusals over $name', (shape) => {
  let url: string;
  beforeAll(async () => {
    const card = await rawCard(fleet.base(shape.agent), shape.versionHeaders);
    expect(card.status).toBe(200);
    url = shape.url(JSON.parse(card.text) as CardJson);
    expect(url.startsWith(fleet.base(shape.agent))).toBe(true);
  });

  it('admits the same request with a valid key (the control)', async () => {
    const before = callsTo(shape.peer()).length;
    const answer = await rawPost(url, shape.body('control?'), {
      ...shape.versionHeaders,
      ...credentialHeaders('bearer-key', KEYS.planner),
    });
    expect([200, 201], answer.text).toContain(answer.status); // 0.3.14's REST answers message:send with 201
    expect(answer.text).toContain('You asked: control? Answer: 42.');
    expect(callsTo(shape.peer()).length).toBe(before + 1);
  });

  it.each(REFUSALS)('answers $name with 401 and reaches no agent', async ({ present, challenge, reason }) => {
    const { headers, secret } = await present();
    const before = callsTo(shape.peer()).length;
    const answer = await rawPost(url, shape.body('refuse me?'), { ...shape.versionHeaders, ...headers });

    expect(answer.status, answer.text).toBe(401);
    expect(answer.headers.get('www-authenticate')).toBe(challenge);
    expect(answer.headers.get('content-type')).toMatch(/json/);
    const info = expect.objectContaining({ '@type': ERROR_INFO, reason: 'UNAUTHENTICATED', domain: 'a2a-gateway' });
    const body: unknown = JSON.parse(answer.text);
    if (shape.jsonrpc) {
      expect(body).toEqual({
        jsonrpc: '2.0',
        id: shape.id,
        error: { code: -32000, message: expect.stringContaining(reason), data: [info] },
      });
    } else {
      expect(body).toEqual({
        error: { code: 401, status: 'UNAUTHENTICATED', message: expect.stringContaining(reason), details: [info] },
      });
    }
    if (secret !== undefined) expect(answer.text).not.toContain(secret);
    expect(callsTo(shape.peer()).length).toBe(before);
  });
});

describe.each([
  { sdk: '1.3.0', transport: 'JSONRPC' as TransportName },
  { sdk: '1.3.0', transport: 'HTTP+JSON' as TransportName },
  { sdk: '0.3.14', transport: 'JSONRPC' as TransportName },
  { sdk: '0.3.14', transport: 'HTTP+JSON' as TransportName },
])('SDK $sdk over $transport with refused credentials', ({ sdk, transport }) => {
  const peer = () => (sdk === '1.3.0' ? fleet.peerV1 : fleet.peerV03);
  const agent = sdk === '1.3.0' ? 'v1' : 'v03';
  /** Sends one message (blocking, or streamed and drained) with `auth`. */
  const call = async (auth: StaticCredential, stream: boolean): Promise<unknown> => {
    if (sdk === '1.3.0') {
      const c = await withDeadline(authedClientV1(fleet.base(agent), transport, auth), 5000, 'card');
      const request = sendRequestV1(userMessageV1('am I let in?'));
      return stream
        ? collect(c.sendMessageStream(request, within(5000)), 5000, 'stream')
        : c.sendMessage(request, within(5000));
    }
    const c = await withDeadline(authedClientV03(fleet.base(agent), transport, auth), 5000, 'card');
    const params = sendParamsV03(userMessageV03('am I let in?'));
    return stream
      ? collect(c.sendMessageStream(params, within(5000)), 5000, 'stream')
      : c.sendMessage(params, within(5000));
  };

  it.each([false, true])(
    'rejects the call (streaming: %s) with a wrong key, and the agent sees nothing',
    async (stream) => {
      const auth = new StaticCredential('bearer-key', async () => KEYS.wrong);
      const before = callsTo(peer()).length;
      await expect(call(auth, stream)).rejects.toThrow(/401|not accepted/);
      expect(auth.statuses).toEqual([401]);
      expect(callsTo(peer()).length).toBe(before);
    },
  );

  it('recovers from an expired JWT through the handler: 401, one retry with a fresh token', async () => {
    const auth = new StaticCredential(
      'jwt',
      () => fleet.issuer.sign({ expiresIn: -600 }),
      () => fleet.issuer.sign(),
    );
    const before = callsTo(peer()).length;
    await call(auth, false);
    expect(auth.statuses).toEqual([401]);
    expect(auth.renewals).toBe(1);
    expect(callsTo(peer()).length).toBe(before + 1);
    await call(auth, false); // the renewed token was kept: accepted at the first attempt
    expect(auth.statuses.map((s) => (s < 300 ? 'ok' : s))).toEqual([401, 'ok']);
    expect(auth.renewals).toBe(1);
    expect(callsTo(peer()).length).toBe(before + 2);
  });
});

// ---------------------------------------------------------------------------------------------
// Cards.

const GATEWAY_SCHEMES_V1 = {
  'a2a-gateway-api-key': { apiKeySecurityScheme: { location: 'header', name: 'X-API-Key' } },
  'a2a-gateway-bearer': { httpAuthSecurityScheme: { scheme: 'Bearer', bearerFormat: 'JWT' } },
};
const GATEWAY_SCHEMES_V03 = {
  'a2a-gateway-api-key': { type: 'apiKey', in: 'header', name: 'X-API-Key' },
  'a2a-gateway-bearer': { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
};

describe('the cards with auth on', () => {
  it('serves the 1.0 card without credentials, naming the gateway schemes in the 1.0 shape', async () => {
    const before = callsTo(fleet.peerV1).length;
    const { status, text } = await rawCard(fleet.base('v1'), { 'A2A-Version': '1.0' });
    expect(status).toBe(200);
    const card = JSON.parse(text) as CardJson;
    expect(card['securitySchemes']).toEqual(GATEWAY_SCHEMES_V1);
    expect(card['securityRequirements']).toEqual([
      { schemes: { 'a2a-gateway-api-key': { list: [] } } },
      { schemes: { 'a2a-gateway-bearer': { list: [] } } },
    ]);
    expect(card).not.toHaveProperty('security');
    expect(text).not.toContain(`127.0.0.1:${fleet.peerV1.port}`);
    expect(callsTo(fleet.peerV1).length).toBe(before);
  });

  it('serves the 0.3 card without credentials, naming the gateway schemes in the 0.3 shape', async () => {
    const { status, text } = await rawCard(fleet.base('v03'));
    expect(status).toBe(200);
    const card = JSON.parse(text) as CardJson;
    expect(card['securitySchemes']).toEqual(GATEWAY_SCHEMES_V03);
    expect(card['security']).toEqual([{ 'a2a-gateway-api-key': [] }, { 'a2a-gateway-bearer': [] }]);
    expect(card).not.toHaveProperty('securityRequirements');
    expect(text).not.toContain(`127.0.0.1:${fleet.peerV03.port}`);
  });

  it('hands the SDK resolvers cards whose schemes they understand', async () => {
    const v1 = await new DefaultAgentCardResolver().resolve(fleet.base('v1'));
    expect(v1.securitySchemes['a2a-gateway-api-key']?.scheme).toEqual({
      $case: 'apiKeySecurityScheme',
      value: expect.objectContaining({ location: 'header', name: 'X-API-Key' }),
    });
    expect(v1.securitySchemes['a2a-gateway-bearer']?.scheme).toEqual({
      $case: 'httpAuthSecurityScheme',
      value: expect.objectContaining({ scheme: 'Bearer', bearerFormat: 'JWT' }),
    });
    const v03 = await new DefaultAgentCardResolverV03().resolve(fleet.base('v03'));
    expect(v03.securitySchemes).toEqual(GATEWAY_SCHEMES_V03);
  });

  it('advertises the gateway schemes on the 1.0 extended card too', async () => {
    const auth = new StaticCredential('bearer-key', async () => KEYS.planner);
    const c = await withDeadline(authedClientV1(fleet.base('v1'), 'JSONRPC', auth), 5000, 'card');
    const card = await c.getAgentCard(within(2000));
    expect(card.name).toBe('a2a-js peer (SDK 1.3.0) (extended)');
    expect(JSON.stringify(card)).not.toContain(`127.0.0.1:${fleet.peerV1.port}`);
    expect(Object.keys(card.securitySchemes).sort()).toEqual(['a2a-gateway-api-key', 'a2a-gateway-bearer']);
  });

  it('advertises the gateway schemes on the 0.3 extended card too', async () => {
    const auth = new StaticCredential('bearer-key', async () => KEYS.planner);
    const c = await withDeadline(authedClientV03(fleet.base('v03'), 'JSONRPC', auth), 5000, 'card');
    const card = await c.getAgentCard(within(2000));
    expect(card.name).toBe('a2a-js peer (SDK 0.3.14) (extended)');
    expect(JSON.stringify(card)).not.toContain(`127.0.0.1:${fleet.peerV03.port}`);
    expect(card.securitySchemes).toEqual(GATEWAY_SCHEMES_V03);
  });
});

// ---------------------------------------------------------------------------------------------
// The JWKS: one fetch for many calls (its own gateway and issuer, so the count starts at zero).

describe('the JWKS of the issuer', () => {
  let own: Fleet;
  beforeAll(async () => {
    own = await startFleet({ stepMs: STEP });
  });
  afterAll(() => own.close());

  it('is fetched once for many JWT calls, sequential and concurrent, across agents and SDKs', async () => {
    expect(own.issuer.jwksRequests()).toBe(0);
    const token = (sub: string) => own.issuer.sign({ sub });
    const v1 = async (sub: string, transport: TransportName) => {
      const auth = new StaticCredential('jwt', () => token(sub));
      const c = await withDeadline(authedClientV1(own.base('v1'), transport, auth), 5000, 'card');
      return asMessage(await c.sendMessage(sendRequestV1(userMessageV1('jwks?')), within(5000)));
    };
    const v03 = async (sub: string, transport: TransportName) => {
      const auth = new StaticCredential('jwt', () => token(sub));
      const c = await withDeadline(authedClientV03(own.base('v03'), transport, auth), 5000, 'card');
      return c.sendMessage(sendParamsV03(userMessageV03('jwks?')), within(5000));
    };
    await Promise.all([v1('first-a', 'JSONRPC'), v1('first-b', 'HTTP+JSON'), v03('first-c', 'JSONRPC')]);
    for (let i = 0; i < 4; i++) {
      await v1(`seq-${i}`, TRANSPORTS[i % 2]!);
      await v03(`seq-${i}`, TRANSPORTS[i % 2]!);
    }
    const refused = await rawPost(
      `${own.base('v03')}a2a/jsonrpc`,
      { jsonrpc: '2.0', id: 1, method: 'message/send', params: {} },
      credentialHeaders('jwt', await own.issuer.sign({ stranger: true })),
    );
    expect(refused.status).toBe(401);
    expect(callsTo(own.peerV1).length + callsTo(own.peerV03).length).toBe(11);
    expect(own.issuer.jwksRequests()).toBe(1);
  });
});
