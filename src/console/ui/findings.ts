/** Findings (`/console/findings`): by rule, with its spec section and the latest examples. */
import type { FindingsView } from '../api-types.js';
import { html } from './html.js';
import { problem, usePoll } from './poll.js';
import { exchangeHref } from './router.js';
import { clock } from './format.js';

export function FindingsPage() {
  const findings = usePoll<FindingsView>('/console/api/findings', 10_000);
  const note = problem(findings, 'findings');
  const rules = findings?.data?.rules ?? [];
  return html`<h1>Findings</h1>
    ${findings?.data ? html`<p class="lede">Protocol findings over the last ${findings.data.windowMinutes} minutes, by rule.</p>` : ''}
    ${note ? html`<p class="notice" role="status">${note}</p>` : ''}
    ${findings?.data && rules.length === 0 ? html`<p class="notice" role="status">No findings in this window.</p>` : ''}
    ${rules.map(
      (r) =>
        html`<section class="rule" aria-labelledby=${`rule-${r.rule}`}>
          <h2 id=${`rule-${r.rule}`}><code>${r.rule}</code> <span class="count">${r.count}</span></h2>
          <p>${r.description} <small>(${r.severity}; spec ${r.section})</small></p>
          <ul class="plain">
            ${r.latest.map(
              (e) =>
                html`<li>
                  <a href=${exchangeHref(e.exchangeId)}>${clock(e.at)} · ${e.agent}</a
                  >${e.detail ? html` — ${e.detail}` : ''}
                </li>`,
            )}
          </ul>
        </section>`,
    )}`;
}
