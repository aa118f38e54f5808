/**
 * The console's data API on the admin listener (shapes in src/console/api-types.ts):
 * `/console/api/config`, `fleet`, `feed` (SSE, feed.ts), `exchanges/{id}` (from the recent
 * ring, src/inspect/recent.ts) and `findings`. Mounted by the admin app of each config
 * generation (src/gateway/generation.ts) when `console.enabled`; the admin token middleware in
 * front of the app (src/control/admin-token.ts) guards it like every admin route. In worker mode
 * each worker serves its own numbers (`workers` in `config` says how many there are).
 */
import { mountTaskTimeline } from './timeline-route.js';
import type { Hono } from 'hono';
import type { ServerResponse } from 'node:http';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { RULES } from '../a2a/findings.js';
import type { RecentExchanges } from '../inspect/recent.js';
import type { ConsoleSettings, ExchangeDetail, FindingsView } from './api-types.js';
import type { FeedHub } from './feed.js';
import type { ConsoleStats } from './stats.js';
import { fleetView, type FleetSources } from './fleet-view.js';
import { summarize } from './summary.js';
import { errorAnswer } from '../errors/control-answer.js';

export interface ConsoleApiDeps extends FleetSources {
  readonly settings: ConsoleSettings;
  readonly feed: FeedHub;
  readonly recent: RecentExchanges;
}

export const CONSOLE_API = '/console/api';

export function mountConsoleApi(app: Hono, deps: ConsoleApiDeps): void {
  app.get(`${CONSOLE_API}/config`, (c) => c.json(deps.settings));
  app.get(`${CONSOLE_API}/fleet`, async (c) => c.json(await fleetView(deps)));
  app.get(`${CONSOLE_API}/findings`, (c) => c.json(findingsView(deps.stats)));
  app.get(`${CONSOLE_API}/exchanges/:id`, (c) => {
    const detail = exchangeDetail(deps.recent, c.req.param('id'));
    return detail
      ? c.json(detail)
      : errorAnswer(c, 404, 'NOT_FOUND', 'no such exchange among the recent ones (inspection.recent)');
  });
  app.get(`${CONSOLE_API}/feed`, (c) => {
    const res = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
    if (res === undefined) return errorAnswer(c, 501, 'UNIMPLEMENTED', 'the feed needs the node:http listener');
    if (!deps.feed.attach(res))
      return errorAnswer(c, 503, 'UNAVAILABLE', 'too many consoles are connected (console.feed.maxClients)');
    return RESPONSE_ALREADY_SENT;
  });
  mountTaskTimeline(app, deps);
}

function exchangeDetail(recent: RecentExchanges, id: string): ExchangeDetail | undefined {
  const record = recent.byId(id);
  return record ? { summary: summarize(record), record: { ...record } } : undefined;
}

function findingsView(stats: ConsoleStats): FindingsView {
  const rules = stats.findings.view(stats.minute()).map(({ rule, count, latest }) => {
    const { section, severity, description } = RULES[rule];
    return { rule, section, severity, description, count, latest };
  });
  return { windowMinutes: stats.windowMinutes, rules };
}
