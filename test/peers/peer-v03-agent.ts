// The captured test agent on the native SDK 0.3.14 (A2A 0.3): `kind`-tagged events,
// lowercase states, and `final: true` on the event that ends a stream.
import { randomUUID } from 'node:crypto';
import type { Message, Part, Task, TaskArtifactUpdateEvent, TaskState, TaskStatusUpdateEvent } from 'a2a-sdk-v03';
import type { AgentExecutor, ExecutionEventBus, RequestContext } from 'a2a-sdk-v03/server';
import { TaskRuns, sleep } from '../../src/demo/task-runs.js';
import { ARTIFACT, TEXT, scriptFor } from './peer-common.js';

/** States after which 0.3 streams end (input-required included: the turn is over). */
const FINAL_STATES: readonly TaskState[] = ['completed', 'failed', 'canceled', 'rejected', 'input-required'];

export class PeerV03Executor implements AgentExecutor {
  readonly runs = new TaskRuns();

  constructor(private readonly timing: { stepMs: number; slowMs: number }) {}

  execute = async (ctx: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const text = ctx.userMessage.parts.map((p: Part) => (p.kind === 'text' ? p.text : '')).join('\n');
    const script = scriptFor(text, { ...this.timing, followUp: ctx.task !== undefined });
    const { taskId, contextId } = ctx;
    const status = (state: TaskState, msg?: string, final = FINAL_STATES.includes(state)): void =>
      bus.publish(statusEvent(taskId, contextId, state, msg, final));

    switch (script.kind) {
      case 'question':
        bus.publish(agentMessage(TEXT.answer(script.text), contextId));
        bus.finished();
        return;
      case 'fail':
        throw new Error(TEXT.failure);
      case 'needs-input':
        this.runs.note(taskId, contextId);
        bus.publish(openingTask(ctx));
        status('input-required', TEXT.inputRequired);
        bus.finished();
        return;
      case 'reject':
        this.runs.note(taskId, contextId);
        bus.publish(openingTask(ctx));
        status('rejected', TEXT.rejected);
        bus.finished();
        return;
      case 'misbehave': {
        // As in the capture: completed with final:false, then more events; 0.3.14 forwards them.
        const signal = this.runs.start(taskId, contextId);
        bus.publish(openingTask(ctx));
        status('completed', `${TEXT.completedEarly.slice(0, -1)} (final:false).`, false);
        bus.publish(artifactEvent(taskId, contextId, 'late', TEXT.lateArtifact, false, true));
        if (await sleep(100, signal)) status('working', `${TEXT.afterTerminal} (final:true)`, true);
        this.runs.finish(taskId);
        bus.finished();
        return;
      }
      case 'steps':
        await this.steps(ctx, bus, script.text, script.stepMs);
        return;
    }
  };

  private async steps(ctx: RequestContext, bus: ExecutionEventBus, text: string, stepMs: number): Promise<void> {
    const { taskId, contextId } = ctx;
    const signal = this.runs.start(taskId, contextId);
    try {
      const artifactId = ARTIFACT.idFor(taskId);
      bus.publish(openingTask(ctx));
      bus.publish(statusEvent(taskId, contextId, 'working', TEXT.working, false));
      bus.publish(artifactEvent(taskId, contextId, artifactId, TEXT.chunk1(text), false, false));
      if (!(await sleep(stepMs, signal))) return;
      bus.publish(artifactEvent(taskId, contextId, artifactId, TEXT.chunk2, true, true));
      if (!(await sleep(stepMs, signal))) return;
      bus.publish(statusEvent(taskId, contextId, 'completed', TEXT.done, true));
      bus.finished();
    } finally {
      this.runs.finish(taskId);
    }
  }

  /** The SDK waits on this bus for a final event, so CANCELED is always published. */
  cancelTask = async (taskId: string, bus: ExecutionEventBus): Promise<void> => {
    this.runs.cancel(taskId);
    bus.publish(statusEvent(taskId, this.runs.contextOf(taskId), 'canceled', TEXT.canceled, true));
  };
}

function agentMessage(text: string, contextId: string, taskId?: string): Message {
  return {
    kind: 'message',
    messageId: randomUUID(),
    role: 'agent',
    parts: [{ kind: 'text', text }],
    contextId,
    ...(taskId ? { taskId } : {}),
  };
}

/** The existing task on a follow-up, else a new submitted task holding the user message. */
function openingTask(ctx: RequestContext): Task {
  if (ctx.task) return ctx.task;
  return {
    kind: 'task',
    id: ctx.taskId,
    contextId: ctx.contextId,
    status: { state: 'submitted', timestamp: new Date().toISOString() },
    history: [ctx.userMessage],
    artifacts: [],
  };
}

function statusEvent(
  taskId: string,
  contextId: string,
  state: TaskState,
  text: string | undefined,
  final: boolean,
): TaskStatusUpdateEvent {
  return {
    kind: 'status-update',
    taskId,
    contextId,
    status: {
      state,
      timestamp: new Date().toISOString(),
      ...(text ? { message: agentMessage(text, contextId, taskId) } : {}),
    },
    final,
  };
}

function artifactEvent(
  taskId: string,
  contextId: string,
  artifactId: string,
  text: string,
  append: boolean,
  lastChunk: boolean,
): TaskArtifactUpdateEvent {
  return {
    kind: 'artifact-update',
    taskId,
    contextId,
    artifact: { artifactId, name: ARTIFACT.name, description: ARTIFACT.description, parts: [{ kind: 'text', text }] },
    append,
    lastChunk,
  };
}
