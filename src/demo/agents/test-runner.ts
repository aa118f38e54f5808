// Demo agent "test-runner" (@a2a-js/sdk 1.3.0): every message starts a Task that streams a
// pytest-style log as one artifact built from appended chunks, then completes. Exercises
// progressive SSE delivery and artifact reassembly (append / lastChunk) through the gateway.
import type { AgentExecutor, ExecutionEventBus, RequestContext } from '@a2a-js/sdk/server';
import { TaskRuns, sleep } from '../task-runs.js';
import { artifactUpdate, messageText, openingTask, statusUpdate, TaskState } from '../v1-events.js';
import { cancelVia, demoCard, skill, type DemoAgent } from './common.js';

export interface TestRunnerOptions {
  /** Total run time of one test session, ms (default 3000). */
  durationMs?: number;
}

export const TEST_NAMES = [
  'test_card_rewrite',
  'test_jsonrpc_passthrough',
  'test_rest_passthrough',
  'test_sse_progressive',
  'test_sse_client_abort',
  'test_version_header',
  'test_tenant_path',
  'test_cancel_task',
  'test_subscribe_task',
  'test_list_tasks',
  'test_push_config',
  'test_timeout_rescue',
] as const;

export function testRunner(opts: TestRunnerOptions = {}): DemoAgent {
  const executor = new TestRunnerExecutor(opts.durationMs ?? 3000);
  return {
    card: demoCard({
      name: 'test-runner',
      description: 'Runs the test suite and streams the log as it goes.',
      skills: [
        skill('run-tests', 'Run tests', 'Runs the suite; the log arrives as appended artifact chunks.', [
          'run the tests',
          'run tests/test_gateway.py',
        ]),
      ],
    }),
    executor,
    stop: () => executor.runs.abortAll(),
  };
}

export class TestRunnerExecutor implements AgentExecutor {
  readonly runs = new TaskRuns();
  constructor(private readonly durationMs: number) {}

  cancelTask = cancelVia(this.runs, 'Test session interrupted.');

  execute = async (ctx: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const { taskId, contextId } = ctx;
    const signal = this.runs.start(taskId, contextId);
    const started = Date.now();
    // One pause before each test result and one before the summary line.
    const pause = this.durationMs / (TEST_NAMES.length + 1);
    const log = (text: string, more: { append?: boolean; lastChunk?: boolean } = {}): void =>
      bus.publish(
        artifactUpdate(taskId, contextId, {
          artifactId: `log-${taskId.slice(0, 8)}`,
          name: 'pytest.log',
          description: 'test session log',
          text,
          ...more,
        }),
      );
    try {
      bus.publish(openingTask(ctx));
      const target = messageText(ctx.userMessage).trim() || 'the suite';
      bus.publish(statusUpdate(taskId, contextId, TaskState.TASK_STATE_WORKING, `Running ${target}...`));
      log(
        `============================= test session starts ==============================\ncollected ${TEST_NAMES.length} items\n`,
      );
      for (const name of TEST_NAMES) {
        if (!(await sleep(pause, signal))) return;
        log(`tests/test_gateway.py::${name} PASSED\n`, { append: true });
      }
      if (!(await sleep(pause, signal))) return;
      const seconds = ((Date.now() - started) / 1000).toFixed(2);
      log(
        `============================== ${TEST_NAMES.length} passed in ${seconds}s ==============================\n`,
        { append: true, lastChunk: true },
      );
      bus.publish(
        statusUpdate(taskId, contextId, TaskState.TASK_STATE_COMPLETED, `${TEST_NAMES.length} passed in ${seconds}s`),
      );
    } finally {
      this.runs.finish(taskId);
    }
  };
}
