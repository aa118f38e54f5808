/**
 * Who a request is from, once client authentication has accepted its
 * credentials. Access rules, task ownership and rate limits key on `id`; `groups` lets a rule name
 * a team instead of every client; `via` says which mechanism vouched for it (logs, metrics).
 * Kept in its own file so consumers of the identity need not import the authenticators.
 */
export interface Principal {
  readonly id: string;
  readonly groups: readonly string[];
  readonly via: 'api-key' | 'jwt';
}
