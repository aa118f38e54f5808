/** One exchange (`/console/exchanges/{id}`): its summary, findings, trace link and the record's facts. */
import type { ConsoleSettings, ExchangeDetail } from '../api-types.js';
import { html } from './html.js';
import { problem, usePoll } from './poll.js';
import { taskHref } from './router.js';
import { bytes, clock, ms, stateName } from './format.js';

function Trace({ traceId, settings }: { traceId: string; settings: ConsoleSettings | undefined }) {
  const url = settings?.traceUrl?.replace('{traceId}', encodeURIComponent(traceId));
  return url ? html`<a href=${url} rel="noopener">${traceId}</a>` : html`<code>${traceId}</code>`;
}

export function ExchangePage({ id }: { id: string }) {
  const detail = usePoll<ExchangeDetail>(`/console/api/exchanges/${encodeURIComponent(id)}`, 0);
  const settings = usePoll<ConsoleSettings>('/console/api/config', 0);
  const note = problem(detail, 'exchange');
  const s = detail?.data?.summary;
  return html`<h1>Exchange <code>${id}</code></h1>
    <p><a href="/console/live">← Live traffic</a></p>
    ${note ? html`<p class="notice" role="status">${note}</p>` : ''}
    ${
      s
        ? html`<dl class="facts">
              <dt>Agent</dt>
              <dd>${s.agent}</dd>
              <dt>Method</dt>
              <dd>${s.method} <small>${s.binding ?? ''} ${s.version ?? ''}</small></dd>
              <dt>Kind</dt>
              <dd>${s.kind}</dd>
              <dt>Tenant</dt>
              <dd>${s.tenant ?? '—'}</dd>
              <dt>Started</dt>
              <dd>${clock(s.startedAt)} (${ms(s.durationMs)})</dd>
              <dt>Task</dt>
              <dd>
                ${s.taskId ? html`<a href=${taskHref(s.agent, s.taskId)}>${s.taskId}</a>` : '—'} ${stateName(s.state)}
              </dd>
              <dt>Status</dt>
              <dd>${s.status ?? '—'} · ${s.outcome}</dd>
              <dt>Bytes in / out</dt>
              <dd>${bytes(s.bytesIn)} / ${bytes(s.bytesOut)}</dd>
              <dt>Stream events</dt>
              <dd>${s.streamEvents ?? '—'}</dd>
              <dt>Rescue</dt>
              <dd>${s.rescue ? `${s.rescue.strategy}${s.rescue.outcome ? `: ${s.rescue.outcome}` : ''}` : '—'}</dd>
              <dt>Replica</dt>
              <dd>${s.replica ?? '—'}</dd>
              <dt>Idempotent send</dt>
              <dd>${s.idempotency ?? '—'}</dd>
              <dt>Stream resume</dt>
              <dd>${s.resume ?? '—'}</dd>
              <dt>Translation</dt>
              <dd>${s.translation ?? '—'}</dd>
              <dt>Findings</dt>
              <dd>${s.findings.length ? s.findings.join(', ') : 'none'}</dd>
              <dt>Trace</dt>
              <dd>${s.traceId ? html`<${Trace} traceId=${s.traceId} settings=${settings?.data} />` : '—'}</dd>
            </dl>
            <h2>Record</h2>
            <pre class="record" tabindex="0" aria-label="The exchange record as JSON">
${JSON.stringify(detail?.data?.record, null, 2)}</pre>`
        : ''
    }`;
}
