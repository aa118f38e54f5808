// The captured test agent, as an @a2a-js/sdk 1.3.0 AgentExecutor (script in peer-common.ts).
import { AgentEvent, type AgentExecutor, type ExecutionEventBus, type RequestContext } from '@a2a-js/sdk/server';
import { TaskRuns, sleep } from '../../src/demo/task-runs.js';
import { cancelVia } from '../../src/demo/agents/common.js';
import {
  agentMessage,
  artifactUpdate,
  messageText,
  openingTask,
  statusUpdate,
  TaskState,
} from '../../src/demo/v1-events.js';
import { ARTIFACT, TEXT, scriptFor } from './peer-common.js';

export class PeerV1Executor implements AgentExecutor {
  readonly runs = new TaskRuns();

  constructor(private readonly timing: { stepMs: number; slowMs: number }) {}

  execute = async (ctx: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const script = scriptFor(messageText(ctx.userMessage), { ...this.timing, followUp: ctx.task !== undefined });
    const { taskId, contextId } = ctx;
    const status = (state: TaskState, text?: string): void => bus.publish(statusUpdate(taskId, contextId, state, text));

    switch (script.kind) {
      case 'question':
        bus.publish(AgentEvent.message(agentMessage(TEXT.answer(script.text), contextId)));
        return;
      case 'fail':
        // Thrown before any event: the SDK synthesizes the FAILED task itself.
        throw new Error(TEXT.failure);
      case 'needs-input':
        this.runs.note(taskId, contextId);
        bus.publish(openingTask(ctx));
        status(TaskState.TASK_STATE_INPUT_REQUIRED, TEXT.inputRequired);
        return;
      case 'reject':
        this.runs.note(taskId, contextId);
        bus.publish(openingTask(ctx));
        status(TaskState.TASK_STATE_REJECTED, TEXT.rejected);
        return;
      case 'misbehave': {
        // Events after the terminal one: SDK 1.3.0 is expected to drop them.
        const signal = this.runs.start(taskId, contextId);
        bus.publish(openingTask(ctx));
        status(TaskState.TASK_STATE_COMPLETED, TEXT.completedEarly);
        if (await sleep(100, signal)) {
          bus.publish(
            artifactUpdate(taskId, contextId, {
              artifactId: 'late',
              name: ARTIFACT.name,
              text: TEXT.lateArtifact,
              lastChunk: true,
            }),
          );
          status(TaskState.TASK_STATE_WORKING, TEXT.afterTerminal);
        }
        this.runs.finish(taskId);
        return;
      }
      case 'steps':
        await this.steps(ctx, bus, script.text, script.stepMs);
        return;
    }
  };

  /** submitted → working → chunk 1 → wait → chunk 2 (append, lastChunk) → wait → completed. */
  private async steps(ctx: RequestContext, bus: ExecutionEventBus, text: string, stepMs: number): Promise<void> {
    const { taskId, contextId } = ctx;
    const signal = this.runs.start(taskId, contextId);
    try {
      const chunk = { artifactId: ARTIFACT.idFor(taskId), name: ARTIFACT.name, description: ARTIFACT.description };
      bus.publish(openingTask(ctx));
      bus.publish(statusUpdate(taskId, contextId, TaskState.TASK_STATE_WORKING, TEXT.working));
      bus.publish(artifactUpdate(taskId, contextId, { ...chunk, text: TEXT.chunk1(text) }));
      if (!(await sleep(stepMs, signal))) return;
      bus.publish(artifactUpdate(taskId, contextId, { ...chunk, text: TEXT.chunk2, append: true, lastChunk: true }));
      if (!(await sleep(stepMs, signal))) return;
      bus.publish(statusUpdate(taskId, contextId, TaskState.TASK_STATE_COMPLETED, TEXT.done));
    } finally {
      this.runs.finish(taskId);
    }
  }

  /** Stops the loop if any and always publishes CANCELED (the SDK waits for it on the bus). */
  cancelTask = cancelVia(this.runs, TEXT.canceled);
}
