/**
 * A small stacked sparkline of requests per minute (message / task / error) with uPlot: the
 * series are drawn cumulatively (task on message, error on both) and filled, so the top edge is
 * the total. Decorative beside the numbers, so hidden from assistive technology.
 */
import uPlot from 'uplot';
import { useEffect, useRef } from 'preact/hooks';
import { html } from './html.js';

export interface Stack {
  readonly message: readonly number[];
  readonly task: readonly number[];
  readonly error: readonly number[];
}

export const COLORS = { message: '#1f6fb5', task: '#2e8540', error: '#c0392b' };

function stacked(stack: Stack): uPlot.AlignedData {
  const xs = stack.message.map((_v, i) => i);
  const m = stack.message.map((v) => v);
  const t = m.map((v, i) => v + (stack.task[i] ?? 0));
  const e = t.map((v, i) => v + (stack.error[i] ?? 0));
  return [xs, e, t, m];
}

export function Sparkline({ stack, width = 160, height = 36 }: { stack: Stack; width?: number; height?: number }) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  useEffect(() => {
    if (!box.current) return;
    const series = (stroke: string) => ({ stroke, fill: `${stroke}99`, width: 1, points: { show: false } });
    plot.current = new uPlot(
      {
        width,
        height,
        legend: { show: false },
        cursor: { show: false },
        axes: [{ show: false }, { show: false }],
        scales: { x: { time: false }, y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
        series: [{}, series(COLORS.error), series(COLORS.task), series(COLORS.message)],
      },
      stacked(stack),
      box.current,
    );
    return () => plot.current?.destroy();
  }, [width, height]);
  useEffect(() => plot.current?.setData(stacked(stack)), [stack]);
  return html`<div class="spark" ref=${box} aria-hidden="true"></div>`;
}
