/** Live traffic (`/console/live`): the feed's exchanges, filtered; a row opens the exchange. */
import { useState } from 'preact/hooks';
import type { ExchangeSummary } from '../api-types.js';
import { html } from './html.js';
import { MAX_ROWS, useFeed } from './feed.js';
import { exchangeHref, navigate, taskHref } from './router.js';
import { bytes, clock, ms, stateName } from './format.js';

const FILTERS = ['agent', 'kind', 'method', 'binding', 'state', 'finding'] as const;
type Filter = (typeof FILTERS)[number];
type Filters = Partial<Record<Filter, string>>;

const valuesOf = (row: ExchangeSummary, f: Filter): readonly string[] => {
  if (f === 'finding') return row.findings;
  const v = row[f];
  return v === undefined ? [] : [String(v)];
};

const matches = (row: ExchangeSummary, filters: Filters): boolean =>
  FILTERS.every((f) => !filters[f] || valuesOf(row, f).includes(filters[f]!));

function FilterBar({
  rows,
  filters,
  set,
}: {
  rows: readonly ExchangeSummary[];
  filters: Filters;
  set: (f: Filters) => void;
}) {
  return html`<fieldset class="filters">
    <legend>Filters</legend>
    ${FILTERS.map((f) => {
      const options = [...new Set(rows.flatMap((r) => valuesOf(r, f)))].sort();
      return html`<label>
        ${f}
        <select
          value=${filters[f] ?? ''}
          onChange=${(e: Event) => set({ ...filters, [f]: (e.target as HTMLSelectElement).value })}
        >
          <option value="">all</option>
          ${options.map((o) => html`<option value=${o}>${f === 'state' ? stateName(o) : o}</option>`)}
        </select>
      </label>`;
    })}
  </fieldset>`;
}

function Row({ row }: { row: ExchangeSummary }) {
  const open = () => navigate(exchangeHref(row.id));
  const key = (e: KeyboardEvent) => {
    if (e.key === 'Enter' && e.target === e.currentTarget) open();
  };
  return html`<tr
    class="clickable"
    tabindex="0"
    onClick=${(e: MouseEvent) => !(e.target as Element).closest('a') && open()}
    onKeyDown=${key}
  >
    <td data-label="Time">${clock(row.startedAt + row.durationMs)}</td>
    <td data-label="Agent">${row.agent}</td>
    <th scope="row" data-label="Method"><a href=${exchangeHref(row.id)}>${row.method}</a></th>
    <td data-label="Kind" class=${`kind-${row.kind}`}>${row.kind}</td>
    <td data-label="Task">
      ${row.taskId ? html`<a href=${taskHref(row.agent, row.taskId)}>${row.taskId.slice(0, 8)}</a>` : '—'}
    </td>
    <td data-label="State">${stateName(row.state)}</td>
    <td data-label="Duration" class="num">${ms(row.durationMs)}</td>
    <td data-label="Bytes in/out" class="num">${bytes(row.bytesIn)} / ${bytes(row.bytesOut)}</td>
    <td data-label="Events" class="num">${row.streamEvents ?? '—'}</td>
    <td data-label="Rescue">${row.rescue?.outcome ?? row.rescue?.strategy ?? '—'}</td>
    <td data-label="Findings">${row.findings.join(', ') || '—'}</td>
  </tr>`;
}

export function LivePage() {
  const feed = useFeed();
  const [filters, setFilters] = useState<Filters>({});
  const shown = feed.rows.filter((r) => matches(r, filters));
  return html`<h1>Live traffic</h1>
    <div class="toolbar">
      <p role="status" class=${feed.status === 'live' ? 'ok' : 'notice'}>Feed: ${feed.status}</p>
      <button type="button" aria-pressed=${feed.paused} onClick=${() => feed.setPaused(!feed.paused)}>
        ${feed.paused ? `Resume (${feed.waiting} waiting)` : 'Pause'}
      </button>
    </div>
    <${FilterBar} rows=${feed.rows} filters=${filters} set=${setFilters} />
    <p class="lede">
      ${shown.length} of ${feed.rows.length} exchanges shown (the last ${MAX_ROWS} are kept), newest first. Enter or a
      click opens one.
      ${
        feed.skipped > 0
          ? ` ${feed.skipped} more were not sent: the feed carries at most console.feed.maxRate a second (the Fleet view counts them all).`
          : ''
      }
    </p>
    <div class="table-wrap">
      <table class="stack">
        <caption class="sr-only">
          Finished exchanges
        </caption>
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Agent</th>
            <th scope="col">Method</th>
            <th scope="col">Kind</th>
            <th scope="col">Task</th>
            <th scope="col">State</th>
            <th scope="col">Duration</th>
            <th scope="col">Bytes in/out</th>
            <th scope="col">Events</th>
            <th scope="col">Rescue</th>
            <th scope="col">Findings</th>
          </tr>
        </thead>
        <tbody>
          ${shown.map((r) => html`<${Row} key=${r.id} row=${r} />`)}
        </tbody>
      </table>
    </div>`;
}
