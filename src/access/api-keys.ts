/**
 * Static API keys for client authentication. Each configured client has either
 * its key (usually from an environment variable) or the SHA-256 of it, so a config file need hold
 * no secret. Both forms are reduced to a 32-byte digest once, at construction.
 *
 * Matching hashes the presented key and compares it with every configured digest using
 * `crypto.timingSafeEqual`, with no early exit, so the time taken does not reveal whether a key
 * matched or which one. Comparing digests rather than the keys themselves also makes every
 * comparison the same length, whatever the caller sends.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Principal } from './principal.js';

export interface ApiKeyEntry {
  /** The key itself. */
  key?: string;
  /** Or the hex SHA-256 of the key. */
  sha256?: string;
  groups: string[];
}

/** Client name → its key. */
export type ApiKeysConfig = Record<string, ApiKeyEntry>;

interface Client {
  readonly digest: Buffer;
  readonly principal: Principal;
}

const SHA256_HEX = /^[0-9a-f]{64}$/i;

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/** The entry's digest; throws on an entry that is not exactly one of a non-empty key and a digest. */
function digestOf(name: string, entry: ApiKeyEntry): Buffer {
  if ((entry.key === undefined) === (entry.sha256 === undefined)) {
    throw new Error(`API key "${name}": give exactly one of key and sha256`);
  }
  if (entry.key !== undefined) {
    if (entry.key === '') throw new Error(`API key "${name}": the key is empty`);
    return sha256(entry.key);
  }
  if (!SHA256_HEX.test(entry.sha256!)) throw new Error(`API key "${name}": sha256 must be 64 hex digits`);
  return Buffer.from(entry.sha256!, 'hex');
}

export class ApiKeys {
  private readonly clients: readonly Client[];

  constructor(config: ApiKeysConfig) {
    const clients: Client[] = [];
    for (const [name, entry] of Object.entries(config)) {
      const digest = digestOf(name, entry);
      const twin = clients.find((c) => c.digest.equals(digest));
      if (twin) throw new Error(`API keys "${twin.principal.id}" and "${name}" are the same key`);
      const principal: Principal = Object.freeze({
        id: name,
        groups: Object.freeze([...entry.groups]),
        via: 'api-key',
      });
      clients.push({ digest, principal });
    }
    this.clients = clients;
  }

  /** The client whose key this is, if any. Examines every configured key whatever the outcome. */
  match(presented: string): Principal | undefined {
    const digest = sha256(presented);
    let found: Principal | undefined;
    for (const client of this.clients) {
      const equal = timingSafeEqual(digest, client.digest);
      found = equal ? client.principal : found;
    }
    return found;
  }
}
