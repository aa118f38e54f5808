/** Sizes take exactly the units docs/configuration.md names: B, KiB, MiB, GiB (issue #30). */
import { describe, expect, it } from 'vitest';
import { parseSize } from '../../src/config/size.js';
import { problems } from './problems.js';

describe('sizes', () => {
  it('takes bytes and the binary units B, KiB, MiB, GiB', () => {
    expect(parseSize(1500)).toBe(1500);
    expect(parseSize('1500')).toBe(1500);
    expect(parseSize('512B')).toBe(512);
    expect(parseSize('64KiB')).toBe(64 * 1024);
    expect(parseSize('1.5MiB')).toBe(1.5 * 1024 ** 2);
    expect(parseSize('2 GiB')).toBe(2 * 1024 ** 3);
  });

  it.each([
    ['1KB', '1KiB'],
    ['1kb', '1KiB'],
    ['8kib', '8KiB'],
    ['32MB', '32MiB'],
    ['1gb', '1GiB'],
    ['4k', '4KiB'],
    ['16b', '16B'],
  ])('refuses %s, naming %s', (written, instead) => {
    expect(parseSize(written)).toMatch(new RegExp(`^"${written}" is not a size: write ${instead} \\(`));
  });

  it('refuses what is not a size at all', () => {
    expect(parseSize('lots')).toBe('"lots" is not a size (use bytes, or B, KiB, MiB, GiB: 512B, 64KiB, 32MiB, 1GiB)');
    expect(parseSize('3XB')).toMatch(/is not a size \(use bytes/);
    expect(parseSize(-1)).toBe('must be a whole number of bytes');
  });

  it('names the key of a refused unit', () => {
    expect(problems('limits: { bodyBytes: 1KB }\nagents:\n  a:\n    url: http://h:1\n')).toEqual([
      'limits.bodyBytes: "1KB" is not a size: write 1KiB (KiB = 1024 bytes; the units are B, KiB, MiB, GiB)',
    ]);
  });
});
