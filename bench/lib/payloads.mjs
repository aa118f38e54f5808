// Request and response bodies, modelled on the recorded A2A 1.0 exchanges in
// test/fixtures/captures (v1--jsonrpc-send-question.http, v1--jsonrpc-send-blocking.http).

export const A2A_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json',
  'a2a-version': '1.0',
};

export const SSE_HEADERS = {
  'content-type': 'application/json',
  accept: 'text/event-stream',
  'a2a-version': '1.0',
};

/** SendMessage request (the capture's, byte for byte). */
export function sendMessageRequest(text = 'what is 6x7?', id = 1) {
  return JSON.stringify({
    jsonrpc: '2.0',
    method: 'SendMessage',
    params: {
      message: {
        messageId: 'eeae2495-8875-4db1-b317-bae4233064be',
        role: 'ROLE_USER',
        parts: [{ text, mediaType: 'text/plain' }],
      },
      configuration: { acceptedOutputModes: ['text/plain'] },
    },
    id,
  });
}

/** GetTask request for `taskId` (the task every Task answer of the bench's upstream names). */
export function getTaskRequest(taskId, id = 1) {
  return JSON.stringify({ jsonrpc: '2.0', method: 'GetTask', params: { id: taskId }, id });
}

/** Scenario 1 response: a direct Message (the capture's response body, 251 bytes). */
export const SMALL_MESSAGE_RESPONSE =
  '{"jsonrpc":"2.0","id":1,"result":{"message":{' +
  '"messageId":"57576e05-9280-4c58-a2f0-1a4d0b8023e8","contextId":"7213f23e-d523-4be2-9ed2-d683af2f7cf3",' +
  '"role":"ROLE_AGENT","parts":[{"text":"You asked: what is 6x7? Answer: 42.","mediaType":"text/plain"}]}}}';

export const TASK_ID = 'e1bb4e81-cdf1-494d-a100-3f3cdf925a17';
const CONTEXT_ID = '6dc9ac75-dd6c-4128-9b4a-11144865e7bd';

/** Deterministic filler text of exactly `n` ASCII characters (no quotes, backslashes or `$`). */
export function filler(n, seed = 'lorem ipsum dolor sit amet consectetur adipiscing elit ') {
  if (n <= 0) return '';
  return seed.repeat(Math.ceil(n / seed.length)).slice(0, n);
}

/** A completed Task with artifacts; `artifactBytes` of text spread over `nArtifacts` artifacts. */
export function taskResponse({ artifactBytes = 9000, nArtifacts = 3, id = 1 } = {}) {
  const per = Math.floor(artifactBytes / nArtifacts);
  const artifacts = [];
  for (let i = 0; i < nArtifacts; i++) {
    artifacts.push({
      artifactId: `result-${i}-e1bb4e81`,
      name: `result-${i}.txt`,
      description: 'bench artifact',
      parts: [{ text: filler(per), mediaType: 'text/plain' }],
    });
  }
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    result: {
      task: {
        id: TASK_ID,
        contextId: CONTEXT_ID,
        status: {
          state: 'TASK_STATE_COMPLETED',
          message: {
            messageId: '714f5ba6-c0ea-48fc-a3a6-a8b1ee3d4bd1',
            contextId: CONTEXT_ID,
            taskId: TASK_ID,
            role: 'ROLE_AGENT',
            parts: [{ text: 'All done.', mediaType: 'text/plain' }],
          },
          timestamp: '2026-11-29T23:06:24.403Z',
        },
        artifacts,
        history: [
          {
            messageId: 'f94dc1da-09d7-4975-82a1-d6cddbc74997',
            contextId: CONTEXT_ID,
            taskId: TASK_ID,
            role: 'ROLE_USER',
            parts: [{ text: 'process this', mediaType: 'text/plain' }],
          },
        ],
        metadata: {},
      },
    },
  });
}

/** The ~10 KB Task of scenario 2. */
export const TASK_10K_RESPONSE = taskResponse({ artifactBytes: 9300, nArtifacts: 3 });

/**
 * The head and tail of a Task whose one artifact holds one huge text part; the caller writes
 * head + `filler` bytes + tail to get a body of exactly `totalBytes` (scenario 5, unary).
 */
export function hugeTaskParts(totalBytes) {
  const head = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    result: {
      task: {
        id: TASK_ID,
        contextId: CONTEXT_ID,
        status: { state: 'TASK_STATE_COMPLETED', timestamp: '2026-11-29T23:06:24.403Z' },
        artifacts: [{ artifactId: 'huge', name: 'huge.txt', parts: [{ text: '@@FILL@@', mediaType: 'text/plain' }] }],
        metadata: {},
      },
    },
  });
  const [before, after] = head.split('@@FILL@@');
  const fillBytes = totalBytes - before.length - after.length;
  if (fillBytes < 0) throw new Error('totalBytes too small');
  return { before, after, fillBytes };
}

/**
 * The same answers in A2A 0.3 JSON-RPC (docs/wire-reference.md §6.3, as the 0.3 SDK writes them in
 * test/fixtures/captures/v03--jsonrpc-send-question.http): the bare result tagged with `kind`,
 * lowercase states and roles, text parts `{kind: "text", text}` (0.3 has no media type on a text
 * part). Each object keeps the members of its 1.0 counterpart in the same order, `kind` first, so
 * that translating it back to 1.0 gives the 1.0 body less the text parts' `mediaType`
 * (`via03` below): the `gateway+translate` variant (bench/lib/paths.mjs) gets these from its
 * upstreams for its 0.3 calls and hands its clients the equivalent of what the other paths get.
 */
const STATES_03 = {
  TASK_STATE_SUBMITTED: 'submitted',
  TASK_STATE_WORKING: 'working',
  TASK_STATE_COMPLETED: 'completed',
};
const ROLES_03 = { ROLE_USER: 'user', ROLE_AGENT: 'agent' };
const parts03 = (parts) => parts.map((p) => ({ kind: 'text', text: p.text }));
const message03 = (m) => ({ kind: 'message', ...m, role: ROLES_03[m.role], parts: parts03(m.parts) });
function task03(t) {
  const status = { ...t.status, state: STATES_03[t.status.state] };
  if (t.status.message) status.message = message03(t.status.message);
  const out = { kind: 'task', ...t, status };
  if (t.artifacts) out.artifacts = t.artifacts.map((a) => ({ ...a, parts: parts03(a.parts) }));
  if (t.history) out.history = t.history.map(message03);
  return out;
}

/** A 1.0 JSON-RPC answer body (`{result: {task} | {message}}`) in 0.3: the bare, `kind`-tagged result. */
export function answer03(body10) {
  const doc = JSON.parse(body10);
  const r = doc.result;
  return JSON.stringify({ ...doc, result: r.task ? task03(r.task) : message03(r.message) });
}

/** What a 1.0 client gets for `answer03(body10)` once translated back: `body10` less the text parts' mediaType. */
export const via03 = (body10) => body10.replaceAll(',"mediaType":"text/plain"', '');

/** Scenario 1's and 2's (and 11's) answers in 0.3, for 0.3 calls. */
export const SMALL_MESSAGE_RESPONSE_03 = answer03(SMALL_MESSAGE_RESPONSE);
export const TASK_10K_RESPONSE_03 = answer03(TASK_10K_RESPONSE);

/** A minimal A2A 1.0 agent card for an upstream at `baseUrl`. */
export function agentCard(baseUrl, name) {
  return JSON.stringify({
    name: `bench-${name}`,
    description: `Benchmark upstream (${name}): fixed responses, no work.`,
    version: '1.0.0',
    supportedInterfaces: [{ url: `${baseUrl}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    capabilities: { streaming: true },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
  });
}

/**
 * SendStreamingMessage request. The SSE upstream reads its instructions from
 * params.metadata.bench: {events, eventBytes, mode: 'burst'|'paced'|'interval', rate, intervalMs, kind}.
 */
export function streamingRequest(bench, id = 1) {
  return JSON.stringify({
    jsonrpc: '2.0',
    method: 'SendStreamingMessage',
    params: {
      message: {
        messageId: 'bee2a6f7-6f30-4ae9-80f0-30a5a1c7f9a6',
        role: 'ROLE_USER',
        parts: [{ text: 'stream this', mediaType: 'text/plain' }],
      },
      configuration: { acceptedOutputModes: ['text/plain'] },
      metadata: { bench },
    },
    id,
  });
}
