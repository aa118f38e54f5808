/** Small formatters the views share. */
export const ms = (value: number | undefined): string =>
  value === undefined
    ? '—'
    : value < 1000
      ? `${Math.round(value)} ms`
      : `${(value / 1000).toFixed(value < 10_000 ? 2 : 1)} s`;

export const bytes = (value: number): string =>
  value < 1024
    ? `${value} B`
    : value < 1024 * 1024
      ? `${(value / 1024).toFixed(1)} KiB`
      : `${(value / 1048576).toFixed(1)} MiB`;

export const clock = (epochMs: number): string => new Date(epochMs).toLocaleTimeString();

/** `TASK_STATE_INPUT_REQUIRED` → `input-required`. */
export const stateName = (state: string | undefined): string =>
  state === undefined
    ? '—'
    : state
        .replace(/^TASK_STATE_/, '')
        .toLowerCase()
        .replace(/_/g, '-');
