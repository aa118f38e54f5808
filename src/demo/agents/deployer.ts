// Demo agent "deployer" (@a2a-js/sdk 1.3.0): a deliberately long Task (75 s by default)
// that only reports progress through periodic WORKING status updates. It exists to exercise
// the gateway's timeouts: blocking sends that outlive them, idle-looking streams, and
// the rescue path (returnImmediately / GetTask / SubscribeToTask / CancelTask).
import type { AgentExecutor, ExecutionEventBus, RequestContext } from '@a2a-js/sdk/server';
import { TaskRuns, sleep } from '../task-runs.js';
import { artifactUpdate, messageText, openingTask, statusUpdate, TaskState } from '../v1-events.js';
import { cancelVia, demoCard, skill, type DemoAgent } from './common.js';

export interface DeployerOptions {
  /** Total deployment time, ms (default 75000). */
  durationMs?: number;
  /** Interval between progress updates, ms (default 5000; shortened to fit durationMs). */
  progressEveryMs?: number;
}

const PHASES = [
  'building image',
  'pushing image',
  'migrating database',
  'rolling out',
  'running health checks',
] as const;

export function deployer(opts: DeployerOptions = {}): DemoAgent {
  const executor = new DeployerExecutor(opts.durationMs ?? 75_000, opts.progressEveryMs ?? 5_000);
  return {
    card: demoCard({
      name: 'deployer',
      description: 'Deploys a service; takes over a minute and reports progress as it goes.',
      skills: [
        skill('deploy', 'Deploy', 'Long-running deployment with periodic progress updates.', ['deploy api to staging']),
      ],
    }),
    executor,
    stop: () => executor.runs.abortAll(),
  };
}

export class DeployerExecutor implements AgentExecutor {
  readonly runs = new TaskRuns();
  constructor(
    private readonly durationMs: number,
    private readonly progressEveryMs: number,
  ) {}

  cancelTask = cancelVia(this.runs, 'Deployment canceled; rolled back.');

  execute = async (ctx: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const { taskId, contextId } = ctx;
    const signal = this.runs.start(taskId, contextId);
    const target = messageText(ctx.userMessage).trim() || 'the service';
    const ticks = Math.max(1, Math.round(this.durationMs / Math.max(1, this.progressEveryMs)));
    const tickMs = this.durationMs / ticks;
    try {
      bus.publish(openingTask(ctx));
      bus.publish(statusUpdate(taskId, contextId, TaskState.TASK_STATE_WORKING, `Deploying: ${target}`));
      for (let tick = 1; tick <= ticks; tick++) {
        if (!(await sleep(tickMs, signal))) return;
        if (tick === ticks) break;
        const percent = Math.round((tick / ticks) * 100);
        const phase = PHASES[Math.min(PHASES.length - 1, Math.floor((tick / ticks) * PHASES.length))];
        bus.publish(
          statusUpdate(taskId, contextId, TaskState.TASK_STATE_WORKING, `Deploy progress: ${percent}% (${phase})`),
        );
      }
      const seconds = Math.round(this.durationMs / 1000);
      bus.publish(
        artifactUpdate(taskId, contextId, {
          artifactId: `deploy-${taskId.slice(0, 8)}`,
          name: 'deploy-report.txt',
          description: 'deployment report',
          text: `Deployed ${target}\nphases: ${PHASES.join(' → ')}\nduration: ${seconds}s\nstatus: healthy\n`,
          lastChunk: true,
        }),
      );
      bus.publish(statusUpdate(taskId, contextId, TaskState.TASK_STATE_COMPLETED, `Deployed ${target}.`));
    } finally {
      this.runs.finish(taskId);
    }
  };
}
