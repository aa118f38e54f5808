// The `gateway+translate` variant's probe (bench/lib/paths.mjs): before it is measured, one call of
// each kind the bench sends must come back through the gateway as a well-formed A2A 1.0 answer that
// went through translation. A translated call that failed would still answer HTTP 200 (a JSON-RPC
// error, or a stream ended by an error event), and autocannon would count it as a success: the
// variant would then measure refusals, not translation.
//
// "Went through translation" is told by the bytes: the upstreams answer a 0.3 call in 0.3, whose
// text parts have no `mediaType` (payloads.mjs `answer03`), so a translated answer has none, where
// the 1.0 answer the upstream gives an untranslated call has `"mediaType":"text/plain"`. The
// start-up check (setup.mjs verifyPath) already compared the two SendMessage answers byte for byte
// with the translated ones (the variant's `expect`); this adds GetTask and a stream.
import { A2A_HEADERS, SSE_HEADERS, TASK_ID, getTaskRequest, streamingRequest } from './payloads.mjs';

const STATES_10 = new Set(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING', 'TASK_STATE_COMPLETED']);

async function call(url, body, headers) {
  const res = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(10_000) });
  return { status: res.status, text: await res.text() };
}

/** A 1.0 message as translated from 0.3: `ROLE_*`, text parts `{text}` only. */
function checkMessage(m, where) {
  if (m?.kind !== undefined || !/^ROLE_(AGENT|USER)$/.test(m?.role ?? ''))
    throw new Error(`${where}: not a 1.0 message (${JSON.stringify(m)?.slice(0, 200)})`);
  for (const p of m.parts ?? []) checkPart(p, where);
}

function checkPart(p, where) {
  if (typeof p?.text !== 'string' || p.kind !== undefined || p.mediaType !== undefined)
    throw new Error(`${where}: not a text part translated from 0.3 (${JSON.stringify(p)?.slice(0, 200)})`);
}

function checkTask(t, state, where) {
  if (t?.kind !== undefined || t?.status?.state !== state)
    throw new Error(`${where}: not a 1.0 task in ${state} (${JSON.stringify(t)?.slice(0, 300)})`);
  if (t.status.message) checkMessage(t.status.message, `${where}.status.message`);
  for (const a of t.artifacts ?? []) for (const p of a.parts) checkPart(p, `${where}.artifacts`);
  for (const m of t.history ?? []) checkMessage(m, `${where}.history`);
}

/** One 1.0 stream event (a JSON-RPC answer whose result is wrapped by its kind). */
function checkEvent(doc, i, last) {
  const r = doc?.result;
  const where = `stream event ${i}`;
  if (doc?.error || !r) throw new Error(`${where}: ${JSON.stringify(doc).slice(0, 300)}`);
  if (i === 0) return checkTask(r.task, 'TASK_STATE_SUBMITTED', `${where}.task`);
  const e = r.statusUpdate ?? r.artifactUpdate;
  if (!e || e.kind !== undefined || e.final !== undefined)
    throw new Error(`${where}: not a 1.0 update (${JSON.stringify(r).slice(0, 300)})`);
  if (r.artifactUpdate) return e.artifact.parts.forEach((p) => checkPart(p, where));
  const want = last ? 'TASK_STATE_COMPLETED' : 'TASK_STATE_WORKING';
  if (!STATES_10.has(e.status?.state) || e.status.state !== want)
    throw new Error(`${where}: state ${e.status?.state}, expected ${want}`);
  checkMessage(e.status.message, `${where}.status.message`);
}

/**
 * Throws unless GetTask (task agent) and a 5-event SendStreamingMessage of each kind (sse agent)
 * through path `p` come back as 1.0 translated from 0.3.
 */
export async function checkTranslated(p) {
  const got = await call(`${p.agentUrl('task')}/a2a/jsonrpc`, getTaskRequest(TASK_ID), A2A_HEADERS);
  const doc = JSON.parse(got.text);
  if (got.status !== 200 || doc.error) throw new Error(`GetTask: HTTP ${got.status} ${got.text.slice(0, 300)}`);
  // 1.0 GetTask answers the Task itself (0.3 tasks/get: the bare Task, `kind: "task"`).
  checkTask(doc.result, 'TASK_STATE_COMPLETED', 'GetTask result');
  for (const kind of ['status', 'artifact']) {
    const bench = { events: 5, eventBytes: 512, mode: 'burst', kind };
    const s = await call(`${p.agentUrl('sse')}/a2a/jsonrpc`, streamingRequest(bench), SSE_HEADERS);
    const events = s.text.split('\n\n').filter((e) => e.trim() !== '');
    if (s.status !== 200 || events.length !== 5)
      throw new Error(`SendStreamingMessage (${kind}): HTTP ${s.status}, ${events.length}/5 events`);
    events.forEach((e, i) => {
      if (!e.startsWith('data: ')) throw new Error(`stream event ${i}: ${e.slice(0, 200)}`);
      checkEvent(JSON.parse(e.slice(6)), i, i === events.length - 1);
    });
  }
}
