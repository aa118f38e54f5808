// `npm run demo`: talks to the code-reviewer through the gateway with the official SDK
// client, the way any A2A caller would, and prints which response shape each message got.
//   node dist/demo/client.js [gatewayUrl]     (or env A2A_GATEWAY_URL; default http://127.0.0.1:8080)
import { pathToFileURL } from 'node:url';
import type { Message, Task } from '@a2a-js/sdk';
import { ClientFactory, type Client } from '@a2a-js/sdk/client';
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
  "+  if (!res.ok) throw new Error(`card fetch failed: ${res.status}`);",
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
}

/** Per-call deadline: the demo must end even if a hop hangs. */
const CALL_TIMEOUT_MS = 30_000;

/** Runs the demo against `${gatewayUrl}/agents/code-reviewer/`. */
export function runDemo(gatewayUrl: string, log: (line: string) => void = console.log): Promise<DemoOutcome[]> {
  // The trailing slash matters: the SDK resolves '.well-known/agent-card.json' relative to it.
  return runDemoAgainst(`${gatewayUrl.replace(/\/+$/, '')}/agents/code-reviewer/`, log);
}

/** Runs the demo against any code-reviewer base URL (directly, or behind a gateway). */
export async function runDemoAgainst(agentBaseUrl: string, log: (line: string) => void = console.log): Promise<DemoOutcome[]> {
  const client = await new ClientFactory().createFromUrl(agentBaseUrl);
  log(`code-reviewer at ${agentBaseUrl} (${client.transport.protocolName}, A2A ${client.protocolVersion})`);
  const outcomes: DemoOutcome[] = [];
  const step = async (label: string, send: () => Promise<Message | Task>): Promise<DemoOutcome> => {
    const outcome = outcomeOf(label, await send());
    outcomes.push(outcome);
    log(`${outcomes.length}. ${label}`);
    log(`   -> ${render(outcome)}`);
    return outcome;
  };

  await step(`question: "${QUESTION}"`, () => send(client, [textPart(QUESTION)]));
  const review = await step('diff (text/x-diff, 1 file)', () => send(client, [textPart(DIFF, 'text/x-diff')]));
  if (review.shape === 'task' && review.state === 'INPUT_REQUIRED' && review.taskId) {
    const taskId = review.taskId;
    await step(`answer "security" on task ${short(taskId)}`, () => send(client, [textPart('security, please')], taskId));
  }
  return outcomes;
}

function send(client: Client, parts: ReturnType<typeof textPart>[], taskId?: string): Promise<Message | Task> {
  return client.sendMessage(sendRequest(userMessage(parts, { taskId })), { signal: AbortSignal.timeout(CALL_TIMEOUT_MS) });
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
