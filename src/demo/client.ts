// `npm run demo`: talks to the code-reviewer through the gateway with the official SDK
// client, the way any A2A caller would, and prints which response shape each message got.
//   node dist/demo/client.js [gatewayUrl]     (or env A2A_GATEWAY_URL; default http://127.0.0.1:8080)
import { pathToFileURL } from 'node:url';
import type { Message, Task } from '@a2a-js/sdk';
import { ClientFactory } from '@a2a-js/sdk/client';
import { messageText, sendRequest, textPart, TaskState, userMessage } from './v1-events.js';

export const DEFAULT_GATEWAY_URL = 'http://127.0.0.1:8080';

export const QUESTION = 'Is it safe to cache agent cards?';
export const DIFF = [
  'diff --git a/src/cards.ts b/src/cards.ts',
  '--- a/src/cards.ts',
  '+++ b/src/cards.ts',
  '@@ -10,3 +10,4 @@ export async function fetchCard(url: string) {',
  '   const res = await fetch(url);',
  '-  return res.json();',
  '+  if (!res.ok) throw new Error(`card fetch failed: ${res.status}`);',
  '+  return (await res.json()) as AgentCard;',
  ' }',
  '',
].join('\n');

export interface DemoOutcome {
  label: string;
  shape: 'message' | 'task';
  taskId?: string;
  state?: string;
  /** The agent's words: the message text, or the task's status message. */
  text: string;
  /** What the gateway's inspection recorded for this call (GET /exchanges), when asked. */
  recorded?: { kind: string; taskId?: string; state?: string; findings: string[] };
}

/** Per-call deadline: the demo must end even if a hop hangs. */
const CALL_TIMEOUT_MS = 30_000;

/** Runs the demo against `${gatewayUrl}/agents/code-reviewer/`. */
export function runDemo(gatewayUrl: string, log: (line: string) => void = console.log): Promise<DemoOutcome[]> {
  const gateway = gatewayUrl.replace(/\/+$/, '');
  // The trailing slash matters: the SDK resolves '.well-known/agent-card.json' relative to it.
  return runDemoAgainst(`${gateway}/agents/code-reviewer/`, log, gateway);
}

/** Runs the demo against any code-reviewer base URL (directly, or behind a gateway). With
 * `gatewayUrl`, each step also shows what the gateway recorded about the call. */
export async function runDemoAgainst(
  agentBaseUrl: string,
  log: (line: string) => void = console.log,
  gatewayUrl?: string,
): Promise<DemoOutcome[]> {
  const client = await new ClientFactory().createFromUrl(agentBaseUrl);
  log(`code-reviewer at ${agentBaseUrl} (${client.transport.protocolName}, A2A ${client.protocolVersion})`);
  const outcomes: DemoOutcome[] = [];
  const step = async (label: string, parts: ReturnType<typeof textPart>[], taskId?: string): Promise<DemoOutcome> => {
    const message = userMessage(parts, { taskId });
    const result = await client.sendMessage(sendRequest(message), { signal: AbortSignal.timeout(CALL_TIMEOUT_MS) });
    const outcome = outcomeOf(label, result);
    if (gatewayUrl) outcome.recorded = await recordedBy(gatewayUrl, message.messageId);
    outcomes.push(outcome);
    log(`${outcomes.length}. ${label}`);
    log(`   -> ${render(outcome)}`);
    if (outcome.recorded) log(`   gateway recorded: ${renderRecorded(outcome.recorded)}`);
    return outcome;
  };

  await step(`question: "${QUESTION}"`, [textPart(QUESTION)]);
  const review = await step('diff (text/x-diff, 1 file)', [textPart(DIFF, 'text/x-diff')]);
  if (review.shape === 'task' && review.state === 'INPUT_REQUIRED' && review.taskId) {
    const taskId = review.taskId;
    await step(`answer "security" on task ${short(taskId)}`, [textPart('security, please')], taskId);
  }
  return outcomes;
}

/** The gateway's record of the call that carried `messageId` (GET /exchanges, README). */
async function recordedBy(gatewayUrl: string, messageId: string): Promise<DemoOutcome['recorded']> {
  const url = `${gatewayUrl}/exchanges?agent=code-reviewer&messageId=${encodeURIComponent(messageId)}&limit=1`;
  const res = await fetch(url, { signal: AbortSignal.timeout(CALL_TIMEOUT_MS) });
  const body = (await res.json()) as {
    exchanges?: Array<{ a2a?: { kind: string; taskId?: string; state?: string }; findings: Array<{ rule: string }> }>;
  };
  const record = body.exchanges?.[0];
  if (!record?.a2a) return undefined;
  const { kind, taskId, state } = record.a2a;
  return {
    kind,
    ...(taskId ? { taskId } : {}),
    ...(state ? { state } : {}),
    findings: record.findings.map((f) => f.rule),
  };
}

function renderRecorded(r: NonNullable<DemoOutcome['recorded']>): string {
  const parts = [`kind=${r.kind}`];
  if (r.taskId) parts.push(`taskId=${short(r.taskId)}`);
  if (r.state) parts.push(`state=${r.state}`);
  parts.push(r.findings.length ? `findings=${r.findings.join(',')}` : 'no findings');
  return parts.join(' ');
}

function outcomeOf(label: string, result: Message | Task): DemoOutcome {
  if ('messageId' in result) return { label, shape: 'message', text: messageText(result) };
  const state = result.status ? TaskState[result.status.state].replace('TASK_STATE_', '') : 'UNKNOWN';
  const artifacts = result.artifacts.map((a) => a.name).join(', ');
  const text = messageText(result.status?.message) + (artifacts ? ` [artifacts: ${artifacts}]` : '');
  return { label, shape: 'task', taskId: result.id, state, text };
}

function render(o: DemoOutcome): string {
  return o.shape === 'message'
    ? `direct message: "${o.text}"`
    : `task ${short(o.taskId ?? '')} ${o.state}: "${o.text}"`;
}

const short = (id: string): string => `${id.slice(0, 8)}…`;

async function main(): Promise<void> {
  const gateway = process.argv[2] ?? process.env.A2A_GATEWAY_URL ?? DEFAULT_GATEWAY_URL;
  try {
    await runDemo(gateway);
  } catch (err) {
    console.error(`demo failed against ${gateway}: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = 1;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
