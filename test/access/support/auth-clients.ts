/**
 * The official SDK clients with credentials, the way the SDKs mean it: an `AuthenticationHandler`
 * whose `headers()` supplies the credential, wrapped around `fetch` with the SDK's own
 * `createAuthenticatingFetchWithRetry` and handed to both transport factories (`fetchImpl`).
 * Card discovery keeps the SDK's plain resolver: the gateway's public card needs no credential.
 */
import {
  ClientFactory,
  ClientFactoryOptions,
  JsonRpcTransportFactory,
  RestTransportFactory,
  createAuthenticatingFetchWithRetry,
  type AuthenticationHandler,
  type Client,
  type HttpHeaders,
} from '@a2a-js/sdk/client';
import {
  ClientFactory as ClientFactoryV03,
  ClientFactoryOptions as ClientFactoryOptionsV03,
  JsonRpcTransportFactory as JsonRpcTransportFactoryV03,
  RestTransportFactory as RestTransportFactoryV03,
  createAuthenticatingFetchWithRetry as createAuthenticatingFetchWithRetryV03,
  type Client as ClientV03,
} from 'a2a-sdk-v03/client';
import type { TransportName } from '../../peers/clients.js';

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
  const fetchImpl = createAuthenticatingFetchWithRetry(fetch, auth);
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      preferredTransports: [transport],
      transports: [new JsonRpcTransportFactory({ fetchImpl }), new RestTransportFactory({ fetchImpl })],
    }),
  );
  return factory.createFromUrl(baseUrl);
}

/** A 0.3.14 (A2A 0.3) client presenting `auth`'s credential on every call. */
export function authedClientV03(
  baseUrl: string,
  transport: TransportName,
  auth: AuthenticationHandler,
): Promise<ClientV03> {
  const fetchImpl = createAuthenticatingFetchWithRetryV03(fetch, auth);
  const factory = new ClientFactoryV03(
    ClientFactoryOptionsV03.createFrom(ClientFactoryOptionsV03.default, {
      preferredTransports: [transport],
      transports: [new JsonRpcTransportFactoryV03({ fetchImpl }), new RestTransportFactoryV03({ fetchImpl })],
    }),
  );
  return factory.createFromUrl(baseUrl);
}
