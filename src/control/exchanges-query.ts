/**
 * `GET /exchanges` query parameters, read strictly: an operator who mistypes a filter
 * (`?taskid=`, `?limit=ten`) gets a 400 naming it, not every exchange as if no filter were given
 * (issue 30 item 6). Pure: the admin app turns a refusal into its error answer.
 */
import type { RecentQuery } from '../inspect/recent.js';

const FILTERS = ['agent', 'messageId', 'taskId'] as const;
const KNOWN = new Set<string>([...FILTERS, 'limit']);
const DEFAULT_LIMIT = 50;

export type ExchangesQuery = { ok: true; query: RecentQuery } | { ok: false; message: string };

/** `params`: every value of every query parameter, as `URL.searchParams` or Hono's `queries()` give them. */
export function readExchangesQuery(params: Record<string, readonly string[]>): ExchangesQuery {
  for (const [name, values] of Object.entries(params)) {
    if (!KNOWN.has(name)) return refuse(`unknown query parameter '${name}'; use ${[...KNOWN].join(', ')}`);
    if (values.length > 1) return refuse(`query parameter '${name}' given ${values.length} times; give it once`);
    if (values[0] === '') return refuse(`query parameter '${name}' is empty`);
  }
  const query: { -readonly [K in keyof RecentQuery]: RecentQuery[K] } = {};
  for (const name of FILTERS) if (params[name]) query[name] = params[name][0];
  const limit = params.limit?.[0];
  if (limit === undefined) return { ok: true, query: { ...query, limit: DEFAULT_LIMIT } };
  // Digits only: `Number()` would take ' 5', '0x10' and '1e3'. A limit past what the ring holds
  // (inspection.recent, summed over workers in a cluster) is no mistake: it asks for all of it.
  const n = /^[0-9]{1,9}$/.test(limit) ? Number(limit) : NaN;
  if (!(n >= 1)) return refuse(`limit must be a whole number from 1 up, got '${limit.slice(0, 32)}'`);
  return { ok: true, query: { ...query, limit: n } };
}

function refuse(message: string): ExchangesQuery {
  return { ok: false, message };
}
