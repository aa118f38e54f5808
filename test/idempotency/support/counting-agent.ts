/**
 * A real @a2a-js/sdk 1.3.0 agent on loopback whose executor counts the sends it was given (by
 * messageId): what "one task at the agent" is measured with. Text ending in `?` gets a Message;
 * `wait:<ms> …` a task that completes after that long (WORKING until then); anything else a task
 * completed at once.
 */
import { AgentEvent, type AgentExecutor, type ExecutionEventBus, type RequestContext } from '@a2a-js/sdk/server';
import { hostAgent, type CardTemplate } from '../../../src/demo/host.js';
import { TaskRuns, sleep } from '../../../src/demo/task-runs.js';
import { cancelVia } from '../../../src/demo/agents/common.js';
import { agentMessage, messageText, openingTask, statusUpdate, TaskState } from '../../../src/demo/v1-events.js';
import { startGrpcHost } from '../../peers/peer-grpc.js';

export interface CountingAgent {
  readonly url: string;
  /** Sends the executor ran, per messageId. */
  readonly sends: Map<string, number>;
  /** The tasks it created, in order. */
  readonly tasks: string[];
  close(): Promise<void>;
}

class CountingExecutor implements AgentExecutor {
  readonly runs = new TaskRuns();
  readonly sends = new Map<string, number>();
  readonly tasks: string[] = [];

  execute = async (ctx: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const id = ctx.userMessage.messageId;
    this.sends.set(id, (this.sends.get(id) ?? 0) + 1);
    const text = messageText(ctx.userMessage).trim();
    const { taskId, contextId } = ctx;
    if (text.endsWith('?')) {
      bus.publish(AgentEvent.message(agentMessage(`answer to ${text}`, contextId)));
      return;
    }
    this.tasks.push(taskId);
    const waitMs = Number(/^wait:(\d+)/.exec(text)?.[1] ?? 0);
    const signal = this.runs.start(taskId, contextId);
    try {
      bus.publish(openingTask(ctx));
      bus.publish(statusUpdate(taskId, contextId, TaskState.TASK_STATE_WORKING, 'working'));
      if (waitMs > 0 && !(await sleep(waitMs, signal))) return;
      bus.publish(statusUpdate(taskId, contextId, TaskState.TASK_STATE_COMPLETED, 'done'));
    } finally {
      this.runs.finish(taskId);
    }
  };

  cancelTask = cancelVia(this.runs, 'canceled');
}

const CARD: CardTemplate = {
  name: 'counting agent',
  description: 'Counts the sends it runs.',
  provider: { organization: 'idempotency-test', url: 'https://example.invalid' },
  version: '1.0.0',
  capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
  securitySchemes: {},
  securityRequirements: [],
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [],
  signatures: [],
};

/** With `grpc`, it serves the gRPC binding too (on the same request handler, so the same tasks). */
export async function startCountingAgent(opts: { grpc?: boolean } = {}): Promise<CountingAgent> {
  const executor = new CountingExecutor();
  const grpc = opts.grpc ? await startGrpcHost([]) : undefined;
  const hosted = await hostAgent({
    card: CARD,
    executor,
    onClose: () => executor.runs.abortAll(),
    extraInterfaces: grpc ? [grpc.iface] : [],
  });
  grpc?.serve(hosted.requestHandler, false);
  const close = async () => {
    await Promise.all([hosted.close(), grpc?.close()]);
  };
  return { url: hosted.url, sends: executor.sends, tasks: executor.tasks, close };
}
