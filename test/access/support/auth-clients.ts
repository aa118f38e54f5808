/**
 * The official SDK clients with credentials, built by test/peers/clients.ts with a `fetchImpl`:
 * - `authedClientV1/V03`: the way the SDKs mean it, an `AuthenticationHandler` whose `headers()`
 *   supplies the credential, wrapped around `fetch` with the SDK's own
 *   `createAuthenticatingFetchWithRetry`. Card discovery keeps the plain resolver: the gateway's
 *   public card needs no credential.
 * - `clientV1As/V03As`: one principal of ./harness.ts, its key added to every request (the card
 *   fetch included) by `fetchAs`.
 */
import {
  createAuthenticatingFetchWithRetry,
  type AuthenticationHandler,
  type Client,
  type HttpHeaders,
} from '@a2a-js/sdk/client';
import {
  createAuthenticatingFetchWithRetry as createAuthenticatingFetchWithRetryV03,
  type Client as ClientV03,
} from 'a2a-sdk-v03/client';
import { clientV03, clientV1, type TransportName } from '../../peers/clients.js';
import { credentials, type PrincipalName } from './harness.js';

/** How a caller presents its credential. */
export type CredentialKind = 'bearer-key' | 'x-api-key' | 'jwt';

/** The request headers carrying `secret` as `kind` says. */
export function credentialHeaders(kind: CredentialKind, secret: string): HttpHeaders {
  return kind === 'x-api-key' ? { 'X-API-Key': secret } : { Authorization: `Bearer ${secret}` };
}

/**
 * A handler presenting what `current()` gives (a key, or a token minted per call). With `renew`,
 * a 401 is answered by one retry with `renew()`'s credential, which is kept on success (the
 * handler's documented refresh path).
 */
export class StaticCredential implements AuthenticationHandler {
  /** The status of every first attempt, oldest first (the SDK shows the handler no retry's answer). */
  readonly statuses: number[] = [];
  /** How often `renew()` was asked for a credential. */
  renewals = 0;
  private secret: (() => Promise<string>) | undefined;

  constructor(
    private readonly kind: CredentialKind,
    current: () => Promise<string>,
    private readonly renew?: () => Promise<string>,
  ) {
    this.secret = current;
  }

  headers = async (): Promise<HttpHeaders> => credentialHeaders(this.kind, await this.secret!());

  shouldRetryWithHeaders = async (_req: RequestInit, res: Response): Promise<HttpHeaders | undefined> => {
    this.statuses.push(res.status);
    if (res.status !== 401 || !this.renew) return undefined;
    this.renewals += 1;
    return credentialHeaders(this.kind, await this.renew());
  };

  onSuccessfulRetry = async (): Promise<void> => {
    const renew = this.renew!;
    this.secret = renew;
  };
}

/** A 1.3.0 (A2A 1.0) client presenting `auth`'s credential on every call. */
export function authedClientV1(
  baseUrl: string,
  transport: TransportName,
  auth: AuthenticationHandler,
): Promise<Client> {
  return clientV1(baseUrl, { transport, fetchImpl: createAuthenticatingFetchWithRetry(fetch, auth) });
}

/** A 0.3.14 (A2A 0.3) client presenting `auth`'s credential on every call. */
export function authedClientV03(
  baseUrl: string,
  transport: TransportName,
  auth: AuthenticationHandler,
): Promise<ClientV03> {
  return clientV03(baseUrl, { transport, fetchImpl: createAuthenticatingFetchWithRetryV03(fetch, auth) });
}

/** `fetch` that adds `who`'s credentials to every request (what an SDK client is given). */
export function fetchAs(who: PrincipalName, style: 'bearer' | 'apiKey' = 'bearer'): typeof fetch {
  const extra = credentials(who, style);
  return (input, init) => {
    const headers = new Headers(init?.headers);
    for (const [name, value] of Object.entries(extra)) headers.set(name, value);
    return fetch(input, { ...init, headers });
  };
}

/** A 1.3.0 (A2A 1.0) SDK client for `baseUrl` (trailing slash) sending `who`'s credentials. */
export function clientV1As(who: PrincipalName, baseUrl: string, transport: TransportName): Promise<Client> {
  const fetchImpl = fetchAs(who);
  return clientV1(baseUrl, { transport, fetchImpl, cardFetchImpl: fetchImpl });
}

/** A 0.3.14 (A2A 0.3) SDK client for `baseUrl` (trailing slash) sending `who`'s credentials. */
export function clientV03As(who: PrincipalName, baseUrl: string, transport: TransportName): Promise<ClientV03> {
  const fetchImpl = fetchAs(who);
  return clientV03(baseUrl, { transport, fetchImpl, cardFetchImpl: fetchImpl });
}
