/**
 * The console page's entry: the chrome (header, navigation, main) and the view the
 * path names (router.ts). Bundled by scripts/build-console.mjs with uPlot's stylesheet and ours.
 */
import 'uplot/dist/uPlot.min.css';
import './console.css';
import { render } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { html } from './html.js';
import { onLinkClick, useRoute, type Route } from './router.js';
import { FleetPage } from './fleet.js';
import { LivePage } from './live.js';
import { FindingsPage } from './findings.js';
import { ExchangePage } from './exchange.js';
import { TaskPage } from './task-page.js';

const NAV = [
  { href: '/console/', label: 'Fleet', views: ['fleet'] },
  { href: '/console/live', label: 'Live traffic', views: ['live', 'exchange'] },
  { href: '/console/findings', label: 'Findings', views: ['findings'] },
];

function view(route: Route) {
  switch (route.view) {
    case 'fleet':
      return html`<${FleetPage} />`;
    case 'live':
      return html`<${LivePage} />`;
    case 'findings':
      return html`<${FindingsPage} />`;
    case 'exchange':
      return html`<${ExchangePage} id=${route.id} />`;
    case 'task':
      return html`<${TaskPage} agent=${route.agent} taskId=${route.taskId} compare=${route.compare} />`;
    default:
      return html`<h1>Not a console page</h1>
        <p>Nothing is drawn at <code>${route.path}</code>. <a href="/console/">Back to the fleet</a>.</p>`;
  }
}

function App() {
  const route = useRoute();
  const first = useRef(true);
  // After a route change (not the first load), focus moves to the new view, as a page load would.
  useEffect(() => {
    if (first.current) first.current = false;
    else document.getElementById('main')?.focus({ preventScroll: true });
  }, [route]);
  return html`<a class="skip" href="#main">Skip to content</a>
    <header class="top">
      <span class="brand">a2a-gateway</span>
      <nav aria-label="Console">
        <ul>
          ${NAV.map(
            (item) =>
              html`<li>
                <a href=${item.href} aria-current=${item.views.includes(route.view) ? 'page' : undefined}
                  >${item.label}</a
                >
              </li>`,
          )}
        </ul>
      </nav>
    </header>
    <main id="main" tabindex="-1">${view(route)}</main>`;
}

document.addEventListener('click', onLinkClick);
const root = document.getElementById('app');
if (root) {
  root.textContent = '';
  render(html`<${App} />`, root);
}
