// What both test peers (SDK 1.3.0 and SDK 0.3.14) share: the Peer handle, its options, the
// request recorder, and the script the recorded agent follows (see test/fixtures/captures/README.md).
import type { RequestHandler } from 'express';

export interface RecordedRequest {
  method: string;
  /** Full request target as received (path and query string). */
  path: string;
  headers: Record<string, string | string[] | undefined>;
}

export interface Peer {
  /** Base URL, no trailing slash (includes the prefix, if any). */
  url: string;
  port: number;
  /** `127.0.0.1:<port>` of the gRPC binding, when the peer serves one. */
  grpcUrl?: string;
  /** Every HTTP request (and gRPC call: `POST /<service>/<Method>`, metadata as headers) the peer received, oldest first. */
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export interface PeerOptions {
  /** Listen on this port (default: any free one); a test restarting a replica passes its old port. */
  port?: number;
  /** Mount the whole agent under a path prefix, e.g. "/team/reviewer". */
  prefix?: string;
  /** Delay between task steps, ms (default 150). */
  stepMs?: number;
  /** Total duration of a "slow" task, ms (default 8000). */
  slowMs?: number;
  /** capabilities.streaming (default true). */
  streaming?: boolean;
  /** Serve an extended agent card (GetExtendedAgentCard / agent/getAuthenticatedExtendedCard). */
  extendedCard?: boolean;
}

/** Records each request before any routing, so tests see what reached the peer. */
export function recordRequests(into: RecordedRequest[]): RequestHandler {
  return (req, _res, next) => {
    into.push({ method: req.method, path: req.originalUrl, headers: { ...req.headers } });
    next();
  };
}

export type Script =
  | { kind: 'question'; text: string }
  | { kind: 'needs-input' }
  | { kind: 'fail' }
  | { kind: 'reject' }
  | { kind: 'misbehave' }
  | { kind: 'steps'; text: string; stepMs: number };

/**
 * Maps the user's text to the behaviour of the captured agent. Extras on top of the
 * captures' keywords: "slow" spreads the two steps over slowMs, and a leading
 * "sleep:<ms> " overrides the step delay for that one task (as in the captures).
 */
export function scriptFor(rawText: string, opts: { stepMs: number; slowMs: number; followUp: boolean }): Script {
  let text = rawText.trim();
  let stepMs = opts.stepMs;
  const sleep = /^sleep:(\d+)\s*/.exec(text);
  if (sleep) {
    stepMs = Number(sleep[1]);
    text = text.slice(sleep[0].length);
  }
  const lower = text.toLowerCase();
  // A follow-up must open with the task event, so a question there just continues the task.
  if (text.endsWith('?') && !opts.followUp) return { kind: 'question', text };
  if (lower.includes('needs input')) return { kind: 'needs-input' };
  if (lower === 'fail') return { kind: 'fail' };
  if (lower === 'reject') return { kind: 'reject' };
  if (lower === 'misbehave') return { kind: 'misbehave' };
  if (/\bslow\b/.test(lower) && !sleep) stepMs = opts.slowMs / 2;
  return { kind: 'steps', text, stepMs };
}

export const TEXT = {
  answer: (q: string) => `You asked: ${q} Answer: 42.`,
  inputRequired: 'Please provide more details.',
  working: 'Working on it...',
  chunk1: (text: string) => `chunk-1: processed "${text}"; `,
  chunk2: 'chunk-2: done.',
  done: 'All done.',
  canceled: 'Canceled on request.',
  rejected: 'Rejected: this peer declines the request.',
  completedEarly: 'Completed early.',
  lateArtifact: 'late artifact',
  afterTerminal: 'Working after terminal!',
  failure: 'requested failure',
} as const;

export const ARTIFACT = {
  idFor: (taskId: string) => `result-${taskId.slice(0, 8)}`,
  name: 'result.txt',
  description: 'two-chunk artifact',
} as const;

export const PEER_SKILL = {
  id: 'echo-task',
  name: 'Echo task',
  description: "Questions ending in '?' get a direct message; other text becomes a task with a 2-chunk artifact.",
  tags: ['test'],
  examples: ['what is 6x7?', 'process this', 'needs input'],
} as const;
