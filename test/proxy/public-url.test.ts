/** The public URL of an agent routed by host (src/transport/peer.ts `publicHostUrl`). */
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { publicHostUrl } from '../../src/transport/peer.js';

const req = (headers: Record<string, string>, encrypted = false) =>
  ({ headers, socket: encrypted ? { encrypted: true } : {} }) as unknown as IncomingMessage;

describe('publicHostUrl', () => {
  it('is the Host as sent, with the connection scheme', () => {
    expect(publicHostUrl(req({ host: 'localhost:8080' }), undefined, false)).toBe('http://localhost:8080');
    expect(publicHostUrl(req({ host: 'reviewer.example.com' }, true), undefined, false)).toBe(
      'https://reviewer.example.com',
    );
  });

  it("takes publicUrl's scheme (not its host or path) when configured", () => {
    expect(publicHostUrl(req({ host: 'reviewer.example.com' }), 'https://gw.example.com/a2a', false)).toBe(
      'https://reviewer.example.com',
    );
  });

  it('believes X-Forwarded-Proto only from a trusted proxy', () => {
    const forwarded = req({ host: 'reviewer.example.com', 'x-forwarded-proto': 'https' });
    expect(publicHostUrl(forwarded, undefined, true)).toBe('https://reviewer.example.com');
    expect(publicHostUrl(forwarded, undefined, false)).toBe('http://reviewer.example.com');
  });
});
