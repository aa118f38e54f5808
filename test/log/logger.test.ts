// The gateway's logger (src/log.ts): pino into sonic-boom in buffer mode, batched. Every line
// arrives whole and in order, multi-byte text included, across many batches; flush writes the rest.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';

const dir = mkdtempSync(join(tmpdir(), 'a2a-log-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the logger', () => {
  it('writes every line whole and in order across batches, UTF-8 intact, and flushes the rest', async () => {
    const file = join(dir, 'out.log');
    const log = createLogger('info', file);
    const text = 'règle ✓ 日本語 🚀 '.repeat(20);
    for (let i = 0; i < 5000; i++) log.info({ i, text }, 'line');
    await new Promise<void>((resolve, reject) => log.flush((err) => (err ? reject(err) : resolve())));
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(5000);
    lines.forEach((line, i) => expect(JSON.parse(line)).toMatchObject({ i, text, msg: 'line' }));
  });

  it('writes only the lines at or above its level', async () => {
    const file = join(dir, 'level.log');
    const log = createLogger('warn', file);
    log.info('quiet');
    log.warn('loud');
    await new Promise<void>((resolve, reject) => log.flush((err) => (err ? reject(err) : resolve())));
    expect(
      readFileSync(file, 'utf8')
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l).msg),
    ).toEqual(['loud']);
  });
});
