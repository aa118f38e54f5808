/**
 * Task timeline (`/console/tasks/{agent}/{taskId}`, `?compare={agent2}/{taskId2}` for two side by
 * side, aligned at their first calls): the drawing, the waits and duration in words, and the
 * states as a table (the drawing's text alternative).
 */
import type { TaskTimeline } from '../api-types.js';
import { html } from './html.js';
import { problem, usePoll } from './poll.js';
import { TimelineSvg, callLabel, extent } from './timeline-svg.js';
import { exchangeHref } from './router.js';
import { ms, stateName } from './format.js';

const apiPath = (agent: string, taskId: string) =>
  `/console/api/tasks/${encodeURIComponent(agent)}/${encodeURIComponent(taskId)}`;

function Facts({ t }: { t: TaskTimeline }) {
  const start = extent(t).start;
  return html`<section class="task-facts" aria-label=${`${t.agent} / ${t.taskId}`}>
    <h2>${t.agent} / <code>${t.taskId}</code></h2>
    <p>
      ${Object.entries(t.interruptedMs).map(([s, v]) => html`<strong>${ms(v)}</strong> in ${stateName(s)}; `)}
      ${t.durationMs === undefined ? 'not finished yet' : html`duration <strong>${ms(t.durationMs)}</strong>`}
    </p>
    <table>
      <caption>
        States
      </caption>
      <thead>
        <tr>
          <th scope="col">State</th>
          <th scope="col">At</th>
          <th scope="col">Shown to the client</th>
        </tr>
      </thead>
      <tbody>
        ${t.states.map(
          (s) =>
            html`<tr>
              <th scope="row">${stateName(s.state)}</th>
              <td>+${ms(s.at - start)}</td>
              <td>${s.shown ? 'yes' : 'no (gateway only)'}</td>
            </tr>`,
        )}
      </tbody>
    </table>
    <table>
      <caption>
        Calls
      </caption>
      <thead>
        <tr>
          <th scope="col">Call</th>
          <th scope="col">From</th>
          <th scope="col">To</th>
          <th scope="col">Artifact updates</th>
        </tr>
      </thead>
      <tbody>
        ${t.calls.map(
          (c) =>
            html`<tr>
              <th scope="row"><a href=${exchangeHref(c.exchangeId)}>${callLabel(c)}</a></th>
              <td>+${ms(c.startedAt - start)}</td>
              <td>+${ms(c.endedAt - start)}</td>
              <td>${c.artifactsAt.length}</td>
            </tr>`,
        )}
      </tbody>
    </table>
  </section>`;
}

export function TaskPage({ agent, taskId, compare }: { agent: string; taskId: string; compare?: string }) {
  const [agent2, ...rest] = (compare ?? '').split('/');
  const id2 = rest.join('/');
  const first = usePoll<TaskTimeline>(apiPath(agent, taskId), 5000);
  const second = usePoll<TaskTimeline>(compare && agent2 && id2 ? apiPath(agent2, id2) : '', 5000);
  const loaded = [first?.data, compare ? second?.data : undefined].filter((t): t is TaskTimeline => t !== undefined);
  const notes = [problem(first, 'task'), compare ? problem(second, 'compared task') : undefined].filter(Boolean);
  return html`<h1>Task timeline</h1>
    <p class="lede">
      Squares: states (filled: shown to the client; hollow: seen by the gateway only). Bars: calls; ticks: artifact
      updates. ${compare ? ' The two tasks are aligned at their first call.' : ''}
    </p>
    ${notes.map((n) => html`<p class="notice" role="status">${n}</p>`)}
    ${
      loaded.length
        ? html`<div
            class="timeline-wrap"
            tabindex="0"
            role="group"
            aria-label="Timeline drawing (scrolls sideways on a narrow screen)"
          >
            <${TimelineSvg} tasks=${loaded} />
          </div>`
        : ''
    }
    <div class="facts-grid">${loaded.map((t) => html`<${Facts} t=${t} />`)}</div>`;
}
