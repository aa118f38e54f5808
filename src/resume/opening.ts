/**
 * The opening of step 4b's answer, the same for every binding (docs/fleet.md "Stream resume"):
 * the window's first read, or the refusal the binding answers in its own protocol — a window that
 * no longer holds the next event is RESUME_WINDOW_EXCEEDED (HTTP 410, gRPC OUT_OF_RANGE:
 * src/errors/gateway-error.ts); a window store that cannot be read is STATE_UNAVAILABLE with
 * `failClosed`, else the same RESUME_WINDOW_EXCEEDED (the client starts over with GetTask or
 * SubscribeToTask).
 */
import { GatewayError } from '../errors/gateway-error.js';
import type { Exchange } from '../exchange/exchange.js';
import type { ResumeRequest } from './decision.js';
import { beyondWindow } from './follow.js';
import type { ReplayWindows, WindowRead } from './window.js';

export type WindowResume = Extract<ResumeRequest, { kind: 'window' }>;

/** The first read of a resume that can be replayed (recorded `replayed`); throws the refusal otherwise. */
export async function openReplay(
  exchange: Exchange,
  resume: ResumeRequest,
  windows: ReplayWindows,
): Promise<{ resume: WindowResume; first: WindowRead }> {
  const first = resume.kind === 'window' ? await firstRead(exchange, windows, resume.key, resume.after) : undefined;
  if (resume.kind === 'beyond' || !first || beyondWindow(first, resume.after)) {
    exchange.record.resume = 'beyond_window';
    const agent = exchange.upstream.name;
    throw new GatewayError(
      'RESUME_WINDOW_EXCEEDED',
      'the events after Last-Event-ID are no longer kept; GetTask or SubscribeToTask to continue',
      { agent },
    );
  }
  exchange.record.resume = 'replayed';
  return { resume, first };
}

/** The window's first read; a store that cannot answer is a refusal (failClosed) or beyond the window. */
async function firstRead(
  exchange: Exchange,
  windows: ReplayWindows,
  key: string,
  after: number,
): Promise<WindowRead | undefined> {
  try {
    return await windows.read(key, after);
  } catch (err) {
    if (!exchange.upstream.config.resume.failClosed) return undefined;
    exchange.record.resume = 'unavailable';
    throw new GatewayError('STATE_UNAVAILABLE', 'the replay window cannot be read; retry later', {}, { cause: err });
  }
}
