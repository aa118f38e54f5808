/**
 * The card a caller of the gateway gets advertises the gateway's own authentication, not the
 * agent's: with `auth` on, the caller's credentials end at the gateway (the
 * gateway injects its own `headers:` upstream), so the agent's schemes would tell an SDK client to
 * send the wrong thing. Shapes (wire-reference §3, §6.5): 1.0 has oneof-wrapped `securitySchemes`
 * and `securityRequirements` with StringList values; 0.3 has `type`-tagged schemes and `security`.
 * Each scheme is one alternative (a requirement per scheme: any one of them will do). The 0.3
 * HTTP+JSON extended card (`GET /v1/card`) is ProtoJSON of the 0.3 proto (wire-reference §6.4):
 * oneof-wrapped schemes as in 1.0, requirements under the 0.3 name `security`. Pure.
 */

export interface CardSecurity {
  /** API keys are configured: `X-API-Key` (or a Bearer token holding the key). */
  readonly apiKeys: boolean;
  /** JWT bearer tokens are configured. */
  readonly jwt: boolean;
}

const API_KEY = 'a2a-gateway-api-key';
const BEARER = 'a2a-gateway-bearer';

/** Which JSON shape a card is in: 1.0, 0.3 JSON, or 0.3 ProtoJSON (0.3 HTTP+JSON extended card). */
export type CardShape = '1.0' | '0.3' | '0.3-proto';

function shapeOf(card: Record<string, unknown>): CardShape {
  return Array.isArray(card['supportedInterfaces']) ? '1.0' : '0.3';
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

/**
 * The card with the gateway's schemes in place of the agent's (a new object; `card` is
 * untouched), and without `signatures`: a JWS over the agent's card no longer holds (spec §8.4).
 */
export function withGatewaySecurity(
  card: Record<string, unknown>,
  security: CardSecurity,
  shape: CardShape = shapeOf(card),
): Record<string, unknown> {
  const names = [...(security.apiKeys ? [API_KEY] : []), BEARER];
  const { signatures: _signatures, ...out } = card;
  const requirements = names.map((name) => ({ schemes: { [name]: { list: [] } } }));
  if (shape === '1.0') {
    out['securitySchemes'] = schemesV1(security);
    out['securityRequirements'] = requirements;
    delete out['security'];
  } else if (shape === '0.3-proto') {
    out['securitySchemes'] = schemesV1(security);
    out['security'] = requirements;
  } else {
    out['securitySchemes'] = schemesV03(security);
    out['security'] = names.map((name) => ({ [name]: [] }));
    delete out['securityRequirements'];
  }
  return out;
}
