/**
 * A translated SSE answer (docs/translation.md): the agent's event stream framed into events as it
 * arrives (src/codec/sse-frames.ts) and each event's data translated on its own, at once — the
 * stream is never buffered beyond the event in hand. An event's other fields (`event:`, `id:`)
 * and comment-only blocks (keepalives) pass through. An event that cannot be translated, or one
 * longer than the cap, ends the stream with an error event in the caller's protocol (`failure`):
 * never an untranslated event.
 */
import { createSseFramer, frameData, singleLineData, type SseFrame, type SseFramer } from '../codec/sse-frames.js';
import type { Translation } from './decision.js';
import { translateEventData } from './answer.js';

/** The biggest single event translated (larger: the stream fails, see above). */
export const MAX_EVENT_BYTES = 4 * 1024 * 1024;

export class TranslatedEvents {
  private readonly framer: SseFramer = createSseFramer(MAX_EVENT_BYTES);
  /** Why the stream cannot go on (set once; nothing more is passed after it). */
  failure: string | undefined;
  /** Events translated so far (a metric's count). */
  events = 0;

  constructor(private readonly translation: Translation) {}

  /** Bytes of an event not ended yet are held. */
  get holding(): boolean {
    return this.framer.rest().length > 0;
  }

  /** What to write to the client for `chunk`: whole translated events (undefined: none yet). */
  push(chunk: Buffer): Buffer | undefined {
    if (this.failure !== undefined) return undefined;
    const frames = this.framer.push(chunk);
    if (this.framer.passthrough) {
      this.failure = `an event is longer than ${MAX_EVENT_BYTES} bytes`;
      return undefined;
    }
    const out: Buffer[] = [];
    for (const frame of frames) {
      const translated = this.translate(frame);
      if (translated === undefined) break;
      out.push(translated);
    }
    return out.length === 0 ? undefined : out.length === 1 ? out[0] : Buffer.concat(out);
  }

  private translate(frame: SseFrame): Buffer | undefined {
    if (!frame.hasData) return frame.bytes;
    try {
      // The common event is one `data:` line: its data at once, and no other field to keep.
      const single = singleLineData(frame);
      const doc = JSON.parse(single ?? frameData(frame)) as unknown;
      const data = JSON.stringify(translateEventData(this.translation, doc));
      this.events++;
      return Buffer.from(`${single === undefined ? otherFields(frame) : ''}data: ${data}\n\n`);
    } catch (err) {
      this.failure = (err as Error).message;
      return undefined;
    }
  }
}

/** The event's field lines other than `data` (each ended by LF). */
function otherFields(frame: SseFrame): string {
  const text = frame.bytes.toString('utf8', 0, frame.bytes.length - frame.blankLength);
  let out = '';
  for (const line of text.split(/\r\n|\r|\n/)) {
    if (line === '' || line === 'data' || line.startsWith('data:')) continue;
    out += `${line}\n`;
  }
  return out;
}
