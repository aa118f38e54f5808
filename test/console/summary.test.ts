/** The console's summary of a record (src/console/summary.ts): the fleet's facts reach the feed and the exchange page. */
import { describe, expect, it } from 'vitest';
import { summarize } from '../../src/console/summary.js';
import { facts, record } from '../telemetry/support/records.js';

describe('the console summary', () => {
  it('names the replica and what idempotent sends and stream resume did', () => {
    const s = summarize(
      record({
        a2a: facts(),
        replica: 'http://10.0.1.12:9101',
        idempotency: { outcome: 'waited', source: 'idempotency-key' },
        resume: 'replayed',
        translation: { caller: '1.0', agent: '0.3', outcome: 'translated' },
      }),
    );
    expect(s).toMatchObject({ replica: 'http://10.0.1.12:9101', idempotency: 'waited', resume: 'replayed' });
    expect(s.translation).toBe('1.0 → 0.3: translated');
  });

  it('leaves them out for an agent given as url, and calls neither feature touched', () => {
    const s = summarize(record({ a2a: facts() }));
    for (const key of ['replica', 'idempotency', 'resume', 'translation']) expect(s, key).not.toHaveProperty(key);
  });
});
