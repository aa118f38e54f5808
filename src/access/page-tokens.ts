/**
 * ListTasks page tokens under task ownership (issue #29). An agent's `nextPageToken` is opaque
 * but not secret: the a2a-js SDK's is base64 of `timestamp|taskId` of the page's last task, which
 * on a filtered page is often another caller's (list-tasks.ts). So the caller never sees the
 * agent's token: it gets the token sealed (AES-256-GCM) and bound to the agent and the caller,
 * and a sealed token it sends back is opened into the agent's before the call goes on
 * (page-token-request.ts). A token that does not open — the agent's own, another caller's,
 * another agent's, altered, or sealed under another key — is refused as InvalidParams; the
 * agent never sees it.
 *
 * The key: HKDF-SHA256 of `auth.pageTokenSecret`, the same on every replica; without it a
 * random key made once per process group (a cluster's primary hands its workers one through
 * PAGE_TOKEN_KEY_ENV), so tokens then do not outlive a restart nor cross replicas.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/** The environment variable a cluster primary sets for its workers (hex, 32 bytes). */
export const PAGE_TOKEN_KEY_ENV = 'A2A_GATEWAY_PAGE_TOKEN_KEY';

const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const INFO = 'a2a-gateway page tokens v1';

/** Seals an agent's `nextPageToken` for one caller (the ListTasks answer filters, list-tasks.ts). */
export type SealPageToken = (token: string) => string;

let processKey: Buffer | undefined;

/** This process's random key, made once (reloads keep it, so tokens outlive them). */
function randomKey(): Buffer {
  return (processKey ??= randomBytes(32));
}

/** The sealing key: from the configured secret, else the group's (env), else this process's. */
export function pageTokenKey(secret: string | undefined, env: Readonly<Record<string, string | undefined>>): Buffer {
  if (secret !== undefined) return Buffer.from(hkdfSync('sha256', secret, '', INFO, 32));
  const shared = env[PAGE_TOKEN_KEY_ENV];
  if (shared !== undefined && /^[0-9a-f]{64}$/i.test(shared)) return Buffer.from(shared, 'hex');
  return randomKey();
}

/** A fresh key for a cluster primary to hand its workers. */
export function newPageTokenKey(): string {
  return randomBytes(32).toString('hex');
}

export class PageTokens {
  constructor(private readonly key: Buffer) {}

  /** The caller's token for the agent's `token`: version ‖ iv ‖ ciphertext ‖ tag, base64url. */
  seal(token: string, agent: string, caller: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(boundTo(agent, caller));
    const sealed = Buffer.concat([cipher.update(token, 'utf8'), cipher.final()]);
    return Buffer.concat([Buffer.of(VERSION), iv, sealed, cipher.getAuthTag()]).toString('base64url');
  }

  /** The agent's token inside `sealed`, or undefined when it was not sealed for this agent and caller. */
  open(sealed: string, agent: string, caller: string): string | undefined {
    const bytes = Buffer.from(sealed, 'base64url');
    if (bytes.length < 1 + IV_BYTES + TAG_BYTES || bytes[0] !== VERSION) return undefined;
    if (bytes.toString('base64url') !== sealed) return undefined; // not canonical base64url: not ours
    const iv = bytes.subarray(1, 1 + IV_BYTES);
    const tag = bytes.subarray(bytes.length - TAG_BYTES);
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, iv, { authTagLength: TAG_BYTES });
      decipher.setAAD(boundTo(agent, caller));
      decipher.setAuthTag(tag);
      const body = bytes.subarray(1 + IV_BYTES, bytes.length - TAG_BYTES);
      return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
    } catch {
      return undefined; // the tag does not match: altered, or sealed for someone else
    }
  }
}

/** The associated data: a token opens only for the agent and the caller it was sealed for. */
function boundTo(agent: string, caller: string): Buffer {
  return Buffer.from(JSON.stringify([agent, caller]), 'utf8');
}
