/**
 * A task's timeline as SVG, after the A2A guide's figure: a time axis from the first call (or
 * first sight) to the end, the states on it as squares (filled: shown to the client; hollow: seen
 * by the gateway only), one bar per call with its label, ticks for artifact updates. Several
 * tasks are drawn one under the other on one scale, each aligned at its own first call.
 */
import type { TaskTimeline, TimelineCall } from '../api-types.js';
import { html } from './html.js';
import { ms, stateName } from './format.js';

const WIDTH = 900;
const LEFT = 56;
const RIGHT = 56;
const BAR = 18;
const GAP = 8;
const AXIS = 64;

/** Where a task's time starts (its first call, else first sight) and ends. */
export function extent(t: TaskTimeline): { start: number; end: number } {
  const start = t.calls[0]?.startedAt ?? t.firstSeen;
  const ends = [t.lastSeen, ...t.calls.map((c) => c.endedAt), ...t.states.map((s) => s.at)];
  return { start: Math.min(start, t.firstSeen), end: Math.max(...ends) };
}

export const callLabel = (c: TimelineCall): string =>
  [c.method, c.blocking ? 'blocking' : '', c.stream ? 'stream' : '', c.rescue ? `rescue: ${c.rescue}` : '']
    .filter(Boolean)
    .join(' · ');

type Scale = (at: number) => number;

function Axis({ t, x, y, start, span }: { t: TaskTimeline; x: Scale; y: number; start: number; span: number }) {
  return html`<g class="axis">
    <line x1=${LEFT} x2=${WIDTH - RIGHT} y1=${y} y2=${y} />
    ${[0, 0.25, 0.5, 0.75, 1].map(
      (f) =>
        html`<line class="grid" x1=${x(f * span)} x2=${x(f * span)} y1=${y} y2=${y + 5} />
          <text x=${x(f * span)} y=${y + 16} class="tick" text-anchor="middle">${f === 0 ? '0' : ms(f * span)}</text>`,
    )}
    ${squarePositions(t, x, start).map((sx, i) => {
      const s = t.states[i]!;
      return html`<g class=${s.shown ? 'state shown' : 'state hidden'}>
        <rect x=${sx - 5} y=${y - 5} width="10" height="10" />
        <text x=${sx} y=${y - (i % 2 ? 22 : 10)} text-anchor="middle">${stateName(s.state)}</text>
      </g>`;
    })}
  </g>`;
}

/** Where each state's square goes: at its time, but at least one square and a gap after the one
 * before, so states a few milliseconds apart (a rescue's hidden SUBMITTED, then WORKING) stay
 * visible side by side; the table under the drawing has the exact times. */
function squarePositions(t: TaskTimeline, x: Scale, start: number): number[] {
  const out: number[] = [];
  for (const s of t.states) {
    const at = x(s.at - start);
    const previous = out.at(-1);
    out.push(previous === undefined ? at : Math.max(at, previous + 14));
  }
  return out;
}

function Bar({ c, x, y, start }: { c: TimelineCall; x: Scale; y: number; start: number }) {
  const x1 = x(c.startedAt - start);
  const w = Math.max(2, x(c.endedAt - start) - x1);
  const label = callLabel(c);
  const anchorEnd = x1 > WIDTH / 2;
  return html`<g class=${c.stream ? 'call stream' : 'call'}>
    <rect x=${x1} y=${y} width=${w} height=${BAR} rx="3" />
    ${c.artifactsAt.map((at) => html`<line class="artifact" x1=${x(at - start)} x2=${x(at - start)} y1=${y - 3} y2=${y + BAR + 3} />`)}
    <text x=${anchorEnd ? x1 + w - 4 : x1 + 4} y=${y + BAR - 5} text-anchor=${anchorEnd ? 'end' : 'start'}
      >${label} (${ms(c.endedAt - c.startedAt)})</text
    >
  </g>`;
}

const heightOf = (t: TaskTimeline): number => 24 + AXIS + t.calls.length * (BAR + GAP) + 8;

export function describe(t: TaskTimeline): string {
  const waits = Object.entries(t.interruptedMs).map(([s, v]) => `${ms(v)} in ${stateName(s)}`);
  const end = t.durationMs === undefined ? 'not finished' : `finished after ${ms(t.durationMs)}`;
  return `Task ${t.taskId} of ${t.agent}: ${t.calls.length} calls, states ${t.states.map((s) => stateName(s.state)).join(', ') || 'none'}; ${[...waits, end].join('; ')}.`;
}

export function TimelineSvg({ tasks }: { tasks: readonly TaskTimeline[] }) {
  const spans = tasks.map(extent);
  const span = Math.max(1, ...spans.map((e) => e.end - e.start));
  const x: Scale = (offset) => LEFT + (offset / span) * (WIDTH - LEFT - RIGHT);
  let top = 0;
  const groups = tasks.map((t, i) => {
    const y0 = top;
    top += heightOf(t);
    const start = spans[i]!.start;
    return html`<g transform=${`translate(0 ${y0})`}>
      <text x="4" y="16" class="title">${t.agent} / ${t.taskId}</text>
      <${Axis} t=${t} x=${x} y=${24 + AXIS - 20} start=${start} span=${span} />
      ${t.calls.map((c, j) => html`<${Bar} c=${c} x=${x} y=${24 + AXIS + j * (BAR + GAP)} start=${start} />`)}
    </g>`;
  });
  return html`<svg
    class="timeline"
    viewBox=${`0 0 ${WIDTH} ${top}`}
    role="img"
    aria-label=${tasks.map(describe).join(' ')}
  >
    ${groups}
  </svg>`;
}
