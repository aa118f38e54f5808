// Demo agent "code-reviewer" (@a2a-js/sdk 1.3.0). Shows both response shapes of A2A:
//  - a question (text ending in '?', no text/x-diff part)      → a direct Message;
//  - a diff (text/x-diff part, or text starting 'diff --git' / '--- ') → a Task that asks a
//    follow-up question (INPUT_REQUIRED) and, once answered on the same taskId, completes
//    with a review artifact.
import { AgentEvent, type AgentExecutor, type ExecutionEventBus, type RequestContext } from '@a2a-js/sdk/server';
import type { Message } from '@a2a-js/sdk';
import { TaskRuns, sleep } from '../task-runs.js';
import {
  agentMessage,
  artifactUpdate,
  messageText,
  openingTask,
  statusUpdate,
  submittedTask,
  TaskState,
} from '../v1-events.js';
import { cancelVia, demoCard, skill, type DemoAgent } from './common.js';
import { DIFF_MEDIA_TYPE, diffStats, findDiff, hasDiffPart, type DiffStats } from './diff.js';

export interface CodeReviewerOptions {
  /** Pause between review phases, ms (default 400): long enough to watch, short for tests. */
  stepMs?: number;
}

export const FOLLOW_UP_QUESTION = 'Should I focus on security or style?';

export function codeReviewer(opts: CodeReviewerOptions = {}): DemoAgent {
  const executor = new CodeReviewerExecutor(opts.stepMs ?? 400);
  return {
    card: demoCard({
      name: 'code-reviewer',
      description: 'Reviews unified diffs (send them as text/x-diff) and answers code questions.',
      skills: [
        skill(
          'review-diff',
          'Review a diff',
          'Reviews a unified diff; asks which focus you want first.',
          ['diff --git a/x.ts b/x.ts ...'],
          [DIFF_MEDIA_TYPE, 'text/plain'],
        ),
        skill('answer-question', 'Answer a question', "Answers questions that end in '?'.", [
          'Is it safe to cache agent cards?',
        ]),
      ],
    }),
    executor,
    stop: () => executor.runs.abortAll(),
  };
}

export class CodeReviewerExecutor implements AgentExecutor {
  readonly runs = new TaskRuns();
  constructor(private readonly stepMs: number) {}

  execute = async (ctx: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    if (ctx.task) return this.review(ctx, bus);
    const diff = findDiff(ctx.userMessage);
    if (diff !== undefined) return this.intake(ctx, bus, diffStats(diff));
    const text = messageText(ctx.userMessage).trim();
    const reply =
      text.endsWith('?') && !hasDiffPart(ctx.userMessage)
        ? answer(text)
        : "I review unified diffs (send one as text/x-diff) and answer questions ending in '?'.";
    bus.publish(AgentEvent.message(agentMessage(reply, ctx.contextId)));
  };

  cancelTask = cancelVia(this.runs, 'Review canceled.');

  /** First turn on a diff: read it, then ask which focus the reviewer should take. */
  private async intake(ctx: RequestContext, bus: ExecutionEventBus, stats: DiffStats): Promise<void> {
    const { taskId, contextId } = ctx;
    const signal = this.runs.start(taskId, contextId);
    try {
      bus.publish(submittedTask(ctx));
      bus.publish(
        statusUpdate(taskId, contextId, TaskState.TASK_STATE_WORKING, `Reading the diff: ${summary(stats)}.`),
      );
      if (!(await sleep(this.stepMs, signal))) return;
      bus.publish(statusUpdate(taskId, contextId, TaskState.TASK_STATE_INPUT_REQUIRED, FOLLOW_UP_QUESTION));
    } finally {
      this.runs.finish(taskId);
    }
  }

  /** Follow-up turn: the user's answer picks the focus; the review is the artifact. */
  private async review(ctx: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { taskId, contextId } = ctx;
    const signal = this.runs.start(taskId, contextId);
    try {
      const focus = focusOf(messageText(ctx.userMessage));
      const stats = diffStats(originalDiff(ctx.task?.history ?? []) ?? '');
      bus.publish(openingTask(ctx));
      bus.publish(statusUpdate(taskId, contextId, TaskState.TASK_STATE_WORKING, `Reviewing with a ${focus} focus...`));
      if (!(await sleep(this.stepMs, signal))) return;
      const findings = FINDINGS[focus];
      bus.publish(
        artifactUpdate(taskId, contextId, {
          artifactId: `review-${taskId.slice(0, 8)}`,
          name: 'review.md',
          description: `Code review (${focus})`,
          mediaType: 'text/markdown',
          text: reviewText(focus, stats, findings),
          lastChunk: true,
        }),
      );
      bus.publish(
        statusUpdate(
          taskId,
          contextId,
          TaskState.TASK_STATE_COMPLETED,
          `Review complete: ${findings.length} findings.`,
        ),
      );
    } finally {
      this.runs.finish(taskId);
    }
  }
}

type Focus = 'security' | 'style' | 'security and style';

function focusOf(reply: string): Focus {
  const r = reply.toLowerCase();
  const security = r.includes('secur');
  const style = r.includes('style');
  if (security && !style) return 'security';
  if (style && !security) return 'style';
  return 'security and style';
}

const SECURITY = [
  'Validate the new input before it reaches the handler; reject oversized bodies early.',
  'No secrets or tokens appear in the diff or in new log lines.',
];
const STYLE = [
  'Names follow the surrounding code; consider a comment saying why, not what.',
  'Keep the new function small: one job, early returns.',
];
const FINDINGS: Record<Focus, string[]> = {
  security: SECURITY,
  style: STYLE,
  'security and style': [...SECURITY, ...STYLE],
};

function reviewText(focus: Focus, stats: DiffStats, findings: string[]): string {
  return [
    `# Review (${focus})`,
    '',
    `Scope: ${summary(stats)}.`,
    '',
    ...findings.map((f, i) => `${i + 1}. ${f}`),
    '',
    'Verdict: approve with comments.',
    '',
  ].join('\n');
}

function summary(stats: DiffStats): string {
  const files = stats.files.length === 1 ? '1 file' : `${stats.files.length} files`;
  return `${files}, +${stats.added}/-${stats.removed}`;
}

/** The diff of the turn that opened the task (kept by the SDK in the task history). */
function originalDiff(history: Message[]): string | undefined {
  for (const m of history) {
    const diff = findDiff(m);
    if (diff !== undefined) return diff;
  }
  return undefined;
}

/** Canned answers: this is a demo, not a model. */
function answer(question: string): string {
  const q = question.toLowerCase();
  if (q.includes('cach') && q.includes('card')) {
    return (
      'Yes, within reason: agent cards are public and come with Cache-Control and an ETag. ' +
      'Honour max-age, revalidate with If-None-Match, and keep one entry per A2A-Version (the SDK sends Vary: A2A-Version).'
    );
  }
  return `Good question. Short answer to "${question}": it depends on the code; send me the diff (text/x-diff) and I will review it.`;
}
