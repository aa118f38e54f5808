/**
 * The access-control families (issue #13) from the facts access control writes on the record:
 * denials by reason, rate-limited calls, refused push webhooks. The caller's principal never
 * reaches a label, whatever it is and however many there are.
 */
import { describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import { createMetrics } from '../../../src/telemetry/metrics/metrics.js';
import { ACCESS_DENIALS, PUSH_REFUSALS, type AccessFacts } from '../../../src/exchange/record.js';
import { facts, fakeExchange, record } from '../support/records.js';
import { samples } from '../support/registry.js';

function setup() {
  const registry = new Registry();
  const metrics = createMetrics(registry, { agents: ['a', 'b'], processMetrics: false });
  const finish = (...args: Parameters<typeof record>) => metrics.observer.onFinish!(fakeExchange(record(...args)));
  const exposition = () => registry.metrics();
  return { registry, finish, exposition };
}

/** The exposition lines of one family, without HELP and TYPE. */
async function lines(exposition: () => Promise<string>, family: string): Promise<string[]> {
  return (await exposition()).split('\n').filter((l) => l.startsWith(`${family}{`));
}

const denied = (reason: AccessFacts['denied'], principal?: string) => ({
  agent: 'a',
  status: 401,
  outcome: 'gateway-error' as const,
  error: { reason: 'UNAUTHENTICATED', message: 'no' },
  access: { principal, denied: reason },
});

describe('access-control metrics', () => {
  it('count each denial once by reason, rate-limited calls and refused webhooks by rule', async () => {
    const { finish, exposition } = setup();
    finish(denied('expired'));
    finish(denied('expired', 'alice'));
    finish(denied('jwks-unavailable'));
    finish({
      agent: 'b',
      status: 429,
      outcome: 'gateway-error',
      error: { reason: 'RATE_LIMITED', message: 'slow down' },
      access: { principal: 'bob', rateLimited: true },
    });
    finish({
      agent: 'b',
      status: 400,
      a2a: facts({ operation: 'CreateTaskPushNotificationConfig', kind: 'error' }),
      access: { principal: 'bob', pushRefused: 'push-url-resolves-private' },
    });
    const auth = await lines(exposition, 'a2a_auth_denied_total');
    expect(auth).toContain('a2a_auth_denied_total{agent="a",reason="expired"} 2');
    expect(auth).toContain('a2a_auth_denied_total{agent="a",reason="jwks-unavailable"} 1');
    expect(auth).toContain('a2a_auth_denied_total{agent="b",reason="expired"} 0');
    expect(await lines(exposition, 'a2a_rate_limited_total')).toEqual([
      'a2a_rate_limited_total{agent="a"} 0',
      'a2a_rate_limited_total{agent="b"} 1',
    ]);
    const push = await lines(exposition, 'a2a_push_refused_total');
    expect(push).toContain('a2a_push_refused_total{agent="b",rule="push-url-resolves-private"} 1');
    expect(push).toContain('a2a_push_refused_total{agent="a",rule="push-url-scheme"} 0');
  });

  it('start every reason and rule at zero for each configured agent, so the first denial is an increase', async () => {
    const { exposition } = setup();
    const auth = await lines(exposition, 'a2a_auth_denied_total');
    expect(auth).toHaveLength(2 * ACCESS_DENIALS.length);
    for (const agent of ['a', 'b'])
      for (const reason of ACCESS_DENIALS)
        expect(auth).toContain(`a2a_auth_denied_total{agent="${agent}",reason="${reason}"} 0`);
    const push = await lines(exposition, 'a2a_push_refused_total');
    expect(push).toHaveLength(2 * PUSH_REFUSALS.length);
    for (const rule of PUSH_REFUSALS) expect(push).toContain(`a2a_push_refused_total{agent="b",rule="${rule}"} 0`);
  });

  it('count a not-owner denial from the access facts, though it is answered as an unknown task', async () => {
    const { finish, exposition } = setup();
    finish({
      agent: 'a',
      a2a: facts({ operation: 'GetTask', kind: 'error', error: { code: -32001, message: 'Task not found' } }),
      access: { principal: 'mallory', denied: 'not-owner' },
    });
    expect(await lines(exposition, 'a2a_auth_denied_total')).toContain(
      'a2a_auth_denied_total{agent="a",reason="not-owner"} 1',
    );
  });

  it('leave the new gateway reasons out of upstream errors and rejections; requests still count them', async () => {
    const { finish, exposition } = setup();
    finish(denied('invalid-key'));
    finish({ ...denied('forbidden'), status: 403, error: { reason: 'PERMISSION_DENIED', message: 'no' } });
    finish({ agent: 'a', status: 429, error: { reason: 'RATE_LIMITED', message: 'x' }, access: { rateLimited: true } });
    const text = await exposition();
    expect(text).not.toMatch(/a2a_(upstream_errors|rejections)_total\{[^}]*\} [1-9]/);
    expect(text).toMatch(/a2a_requests_total\{agent="a",method="other",[^}]*kind="other",state="none"\} 3/);
  });

  it('label an unknown agent, denial or rule as other', async () => {
    const { finish, exposition } = setup();
    finish({ agent: 'stranger', access: { denied: 'expired' } });
    finish({
      access: { denied: 'made-up' as AccessFacts['denied'], pushRefused: 'nope' as AccessFacts['pushRefused'] },
    });
    const text = await exposition();
    expect(text).toContain('a2a_auth_denied_total{agent="other",reason="expired"} 1');
    expect(text).toContain('a2a_auth_denied_total{agent="other",reason="other"} 1');
    expect(text).toContain('a2a_push_refused_total{agent="other",rule="other"} 1');
    expect(text).not.toMatch(/stranger|made-up|nope/);
  });

  it('never make the principal a label, nor let its value appear, however many callers there are', async () => {
    const { registry, finish, exposition } = setup();
    const callers = (n: number, seed: string) => {
      for (let i = 0; i < n; i++) {
        const principal = `${seed}-${i}@example.com`;
        finish({ agent: 'a', access: { principal } });
        finish(denied(i % 2 ? 'expired' : 'forbidden', principal));
        finish({ agent: 'b', access: { principal, rateLimited: true, pushRefused: 'push-url-address' } });
      }
    };
    callers(5, 'warm-up');
    const before = (await samples(registry)).length;
    callers(500, 'caller');
    expect((await samples(registry)).length).toBe(before);
    const text = await exposition();
    // `principal=` only: the denial reason `no-principal` is a legitimate value.
    expect(text).not.toMatch(/principal=|warm-up|caller-|example\.com/);
    for (const s of await samples(registry)) expect(Object.keys(s.labels)).not.toContain('principal');
  });
});
