/** Fleet (`/console/`): one row per agent, polled from /console/api/fleet every few seconds. */
import type { FleetAgent, FleetReplica, FleetView } from '../api-types.js';
import { html } from './html.js';
import { problem, usePoll } from './poll.js';
import { COLORS, Sparkline } from './sparkline.js';
import { ms, stateName } from './format.js';

const EVERY_MS = 3000;

function Totals({ agent }: { agent: FleetAgent }) {
  const t = agent.totals;
  const part = (n: number, kind: keyof typeof COLORS) =>
    html`<span style=${`color:${COLORS[kind]}`}>${n} ${kind}</span>`;
  const other = t.other ? ` · ${t.other} other` : '';
  return html`<span class="totals"
    >${part(t.message, 'message')}${' · '}${part(t.task, 'task')}${' · '}${part(t.error, 'error')}${other}</span
  >`;
}

/** Each replica's health: its state (healthy in the ok colour), drained, calls outstanding. */
function Replicas({ replicas }: { replicas: readonly FleetReplica[] | undefined }) {
  if (!replicas?.length) return '—';
  return html`<ul class="plain">
    ${replicas.map(
      (r) =>
        html`<li data-replica=${r.url}>
          <span class=${r.state === 'healthy' ? 'ok' : 'bad'}>${r.state}</span>${r.drained ? ' · drained' : ''}
          <br /><small>${r.url} · ${r.outstanding} outstanding</small>
        </li>`,
    )}
  </ul>`;
}

function Row({ agent, windowMinutes }: { agent: FleetAgent; windowMinutes: number }) {
  const states = Object.entries(agent.tasksByState).filter(([, n]) => n > 0);
  return html`<tr>
    <th scope="row">${agent.name}</th>
    <td data-label="Reachable">
      ${
        agent.reachable
          ? html`<span class="ok">yes</span>`
          : html`<span class="bad" title=${agent.cardError ?? ''}
              >no${agent.cardError ? `: ${agent.cardError}` : ''}</span
            >`
      }
    </td>
    <td data-label="Replicas"><${Replicas} replicas=${agent.replicas} /></td>
    <td data-label="Protocol">
      ${agent.protocolVersions.join(', ') || '—'}<br /><small>${agent.bindings.join(', ')}</small>
    </td>
    <td data-label=${`Requests / min (last ${windowMinutes} min)`}>
      <${Sparkline} stack=${agent.perMinute} />
      <${Totals} agent=${agent} />
    </td>
    <td data-label="Tasks by state">
      ${states.length ? states.map(([s, n]) => html`<span class="chip">${stateName(s)} ${n}</span> `) : '—'}
    </td>
    <td data-label="Latency p50 / p99">
      ${
        agent.latency.length
          ? html`<ul class="plain">
              ${agent.latency.map((l) => html`<li>${l.method}: ${ms(l.p50Ms)} / ${ms(l.p99Ms)} <small>(${l.count})</small></li>`)}
            </ul>`
          : '—'
      }
    </td>
    <td data-label="Open streams" class="num">${agent.openStreams}</td>
    <td data-label="Findings (1 h)" class="num">
      ${agent.findingsLastHour ? html`<a href="/console/findings">${agent.findingsLastHour}</a>` : 0}
    </td>
  </tr>`;
}

export function FleetPage() {
  const fleet = usePoll<FleetView>('/console/api/fleet', EVERY_MS);
  const note = problem(fleet, 'fleet');
  return html`<h1>Fleet</h1>
    <p class="lede">
      Requests per minute by kind — <span style=${`color:${COLORS.message}`}>message</span>,${' '}
      <span style=${`color:${COLORS.task}`}>task</span>, <span style=${`color:${COLORS.error}`}>error</span> — refreshed
      every ${EVERY_MS / 1000} s.
    </p>
    ${note ? html`<p class="notice" role="status">${note}</p>` : ''}
    ${
      fleet?.data
        ? html`<div class="table-wrap">
            <table class="stack">
              <caption class="sr-only">
                Agents of the fleet
              </caption>
              <thead>
                <tr>
                  <th scope="col">Agent</th>
                  <th scope="col">Reachable</th>
                  <th scope="col">Replicas</th>
                  <th scope="col">Protocol / bindings</th>
                  <th scope="col">Requests / min</th>
                  <th scope="col">Tasks by state</th>
                  <th scope="col">Latency p50 / p99</th>
                  <th scope="col">Open streams</th>
                  <th scope="col">Findings (1 h)</th>
                </tr>
              </thead>
              <tbody>
                ${fleet.data.agents.map((a) => html`<${Row} key=${a.name} agent=${a} windowMinutes=${fleet.data.windowMinutes} />`)}
              </tbody>
            </table>
          </div>`
        : ''
    }`;
}
