/**
 * The card a caller of the gateway gets advertises the gateway's own authentication, not the
 * agent's (issue #13 item 2): with `auth` on, the caller's credentials end at the gateway (the
 * gateway injects its own `headers:` upstream), so the agent's schemes would tell an SDK client to
 * send the wrong thing. Shapes (wire-reference §3, §6.5): 1.0 has oneof-wrapped `securitySchemes`
 * and `securityRequirements` with StringList values; 0.3 has `type`-tagged schemes and `security`.
 * Each scheme is one alternative (a requirement per scheme: any one of them will do). Pure.
 */

export interface CardSecurity {
  /** API keys are configured: `X-API-Key` (or a Bearer token holding the key). */
  readonly apiKeys: boolean;
  /** JWT bearer tokens are configured. */
  readonly jwt: boolean;
}

const API_KEY = 'a2a-gateway-api-key';
const BEARER = 'a2a-gateway-bearer';

function isV1(card: Record<string, unknown>): boolean {
  return Array.isArray(card['supportedInterfaces']);
}

function schemesV1(security: CardSecurity): Record<string, unknown> {
  return {
    ...(security.apiKeys ? { [API_KEY]: { apiKeySecurityScheme: { location: 'header', name: 'X-API-Key' } } } : {}),
    [BEARER]: {
      httpAuthSecurityScheme: { scheme: 'Bearer', ...(security.jwt ? { bearerFormat: 'JWT' } : {}) },
    },
  };
}

function schemesV03(security: CardSecurity): Record<string, unknown> {
  return {
    ...(security.apiKeys ? { [API_KEY]: { type: 'apiKey', in: 'header', name: 'X-API-Key' } } : {}),
    [BEARER]: { type: 'http', scheme: 'bearer', ...(security.jwt ? { bearerFormat: 'JWT' } : {}) },
  };
}

/** The card with the gateway's schemes in place of the agent's (a new object; `card` is untouched). */
export function withGatewaySecurity(card: Record<string, unknown>, security: CardSecurity): Record<string, unknown> {
  const names = [...(security.apiKeys ? [API_KEY] : []), BEARER];
  const out: Record<string, unknown> = { ...card };
  if (isV1(card)) {
    out['securitySchemes'] = schemesV1(security);
    out['securityRequirements'] = names.map((name) => ({ schemes: { [name]: { list: [] } } }));
    delete out['security'];
  } else {
    out['securitySchemes'] = schemesV03(security);
    out['security'] = names.map((name) => ({ [name]: [] }));
    delete out['securityRequirements'];
  }
  return out;
}
