/** `catalog.host` (src/config/catalog-schema.ts): the AI Catalog's Host Info, optional, checked at load. */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { problems } from './problems.js';

const AGENTS = 'agents:\n  a:\n    url: http://h:1\n';

describe('catalog.host', () => {
  it('is absent by default', () => {
    expect(parseConfig(AGENTS, 'gw.yaml', {}).catalog).toEqual({});
  });

  it('takes the draft Host Info members, a data: logo included', () => {
    const yaml = `catalog:\n  host:\n    displayName: Acme\n    identifier: did:web:acme.example\n    documentationUrl: https://acme.example/ai\n    logoUrl: "data:image/svg+xml;base64,PHN2Zz4="\n${AGENTS}`;
    expect(parseConfig(yaml, 'gw.yaml', {}).catalog.host).toEqual({
      displayName: 'Acme',
      identifier: 'did:web:acme.example',
      documentationUrl: 'https://acme.example/ai',
      logoUrl: 'data:image/svg+xml;base64,PHN2Zz4=',
    });
  });

  it('refuses a host without displayName, an unknown member, or a documentationUrl that is not http(s)', () => {
    expect(problems(`catalog:\n  host: { identifier: acme.example }\n${AGENTS}`).join()).toMatch(
      /catalog\.host\.displayName/,
    );
    expect(problems(`catalog:\n  host: { displayName: A, name: B }\n${AGENTS}`).join()).toMatch(/catalog\.host/);
    expect(problems(`catalog:\n  host: { displayName: A, documentationUrl: ftp://x/ }\n${AGENTS}`).join()).toMatch(
      /catalog\.host\.documentationUrl/,
    );
  });
});
