// `npm run demo`: talks to the code-reviewer through the gateway with the official SDK
// client, the way any A2A caller would, and prints which response shape each message got, and
// what the gateway recorded about each call (GET /exchanges on the admin listener).
//   node dist/demo/client.js [gatewayUrl] [--admin adminUrl]
//     gatewayUrl: or env A2A_GATEWAY_URL; default http://127.0.0.1:8080
//     adminUrl:   or env A2A_GATEWAY_ADMIN_URL; default http://127.0.0.1:9464
//     env A2A_GATEWAY_ADMIN_TOKEN: the `admin.token`, when the gateway has one
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import type { Message, Task } from '@a2a-js/sdk';
import { ClientFactory } from '@a2a-js/sdk/client';
import { messageText, sendRequest, textPart, TaskState, userMessage } from './v1-events.js';

export const DEFAULT_GATEWAY_URL = 'http://127.0.0.1:8080';
export const DEFAULT_ADMIN_URL = 'http://127.0.0.1:9464';

/** Where the gateway's records are read: its admin listener, and `admin.token` if it has one. */
export interface AdminAccess {
  readonly url: string;
  readonly token?: string;
}

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

/** Runs the demo against `${gatewayUrl}/agents/code-reviewer/`, reading records from `admin`. */
export async function runDemo(
  gatewayUrl: string,
  log: (line: string) => void = console.log,
  admin: AdminAccess = { url: DEFAULT_ADMIN_URL },
): Promise<DemoOutcome[]> {
  const gateway = gatewayUrl.replace(/\/+$/, '');
  const adminUrl = admin.url.replace(/\/+$/, '');
  // The trailing slash matters: the SDK resolves '.well-known/agent-card.json' relative to it.
  const outcomes = await runDemoAgainst(`${gateway}/agents/code-reviewer/`, log, { ...admin, url: adminUrl });
  const task = outcomes.find((o) => o.taskId !== undefined)?.taskId;
  log(`console: ${adminUrl}/console/${admin.token ? ' (sign in with the admin token)' : ''}`);
  if (task) log(`the diff's task on a timeline: ${adminUrl}/console/tasks/code-reviewer/${encodeURIComponent(task)}`);
  return outcomes;
}

/** Runs the demo against any code-reviewer base URL (directly, or behind a gateway). With
 * `admin` (the gateway's admin listener), each step also shows what the gateway recorded. */
export async function runDemoAgainst(
  agentBaseUrl: string,
  log: (line: string) => void = console.log,
  admin?: AdminAccess,
): Promise<DemoOutcome[]> {
  const client = await new ClientFactory().createFromUrl(agentBaseUrl);
  log(`code-reviewer at ${agentBaseUrl} (${client.transport.protocolName}, A2A ${client.protocolVersion})`);
  const outcomes: DemoOutcome[] = [];
  const step = async (label: string, parts: ReturnType<typeof textPart>[], taskId?: string): Promise<DemoOutcome> => {
    const message = userMessage(parts, { taskId });
    const result = await client.sendMessage(sendRequest(message), { signal: AbortSignal.timeout(CALL_TIMEOUT_MS) });
    const outcome = outcomeOf(label, result);
    const recorded = admin ? await recordedBy(admin, message.messageId) : undefined;
    if (typeof recorded === 'object') outcome.recorded = recorded;
    outcomes.push(outcome);
    log(`${outcomes.length}. ${label}`);
    log(`   -> ${render(outcome)}`);
    if (outcome.recorded) log(`   gateway recorded: ${renderRecorded(outcome.recorded)}`);
    else if (typeof recorded === 'string') log(`   (no gateway record: ${recorded})`);
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

/** The gateway's record of the call that carried `messageId` (GET /exchanges, docs/operations.md), or why
 * the admin listener could not say. */
async function recordedBy(admin: AdminAccess, messageId: string): Promise<DemoOutcome['recorded'] | string> {
  const url = `${admin.url}/exchanges?agent=code-reviewer&messageId=${encodeURIComponent(messageId)}&limit=1`;
  const headers: Record<string, string> = admin.token ? { authorization: `Bearer ${admin.token}` } : {};
  const res = await fetch(url, { headers, signal: AbortSignal.timeout(CALL_TIMEOUT_MS) }).catch((err: Error) => err);
  if (res instanceof Error || !res.ok) {
    const why = res instanceof Error ? res.message : `HTTP ${res.status}`;
    return `${url.split('?')[0]}: ${why} (see --admin, A2A_GATEWAY_ADMIN_TOKEN)`;
  }
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

const USAGE = `usage: npm run demo -- [GATEWAY_URL] [--admin ADMIN_URL]
  GATEWAY_URL  the gateway's traffic listener (or env A2A_GATEWAY_URL; default ${DEFAULT_GATEWAY_URL})
  --admin URL  its admin listener, for what it recorded (or env A2A_GATEWAY_ADMIN_URL; default ${DEFAULT_ADMIN_URL})
  env A2A_GATEWAY_ADMIN_TOKEN: the admin.token, when the gateway has one
Sends a question and a diff to code-reviewer through the gateway (start it first: npm start).`;

async function main(): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs({
      allowPositionals: true,
      options: { admin: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    });
  } catch (err) {
    // An unknown option is a usage error, not a crash with a stack trace (parseArgs throws).
    console.error(`${(err as Error).message}\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const gateway = positionals[0] ?? process.env.A2A_GATEWAY_URL ?? DEFAULT_GATEWAY_URL;
  const url = values.admin ?? process.env.A2A_GATEWAY_ADMIN_URL ?? DEFAULT_ADMIN_URL;
  const token = process.env.A2A_GATEWAY_ADMIN_TOKEN || undefined;
  try {
    await runDemo(gateway, console.log, { url, ...(token ? { token } : {}) });
  } catch (err) {
    console.error(`demo failed against ${gateway}: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = 1;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
