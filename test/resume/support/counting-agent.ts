/**
 * A real @a2a-js/sdk 1.3.0 streaming agent (with the SDK's 0.3 compatibility layer) whose every
 * task emits `EVENTS` events — the opening Task, WORKING, artifact chunks `stepMs` apart,
 * COMPLETED — and that records the raw bytes it wrote on each answer, so a test compares what a
 * client got through the gateway with what the agent itself sent.
 */
import type { RequestHandler } from 'express';
import type { AgentExecutor, ExecutionEventBus, RequestContext } from '@a2a-js/sdk/server';
import { hostAgent, type HostedAgent } from '../../../src/demo/host.js';
import { TaskRuns, sleep } from '../../../src/demo/task-runs.js';
import { cancelVia } from '../../../src/demo/agents/common.js';
import { artifactUpdate, openingTask, statusUpdate, TaskState } from '../../../src/demo/v1-events.js';
import { PEER_SKILL, type RecordedRequest } from '../../peers/peer-common.js';
import { startGrpcHost, type RecordedStream } from '../../peers/peer-grpc.js';

/** Artifact chunks per task: with the Task, WORKING and COMPLETED, 26 events. */
export const CHUNKS = 23;
export const EVENTS = CHUNKS + 3;

export interface RecordedAnswer {
  readonly method: string;
  readonly path: string;
  /** The request body as the agent's parser read it (JSON), and the path (a REST subscribe names its task there). */
  readonly body: string;
  /** Every byte the agent wrote on the answer. */
  readonly bytes: () => Buffer;
}

export interface CountingAgent {
  readonly url: string;
  readonly answers: RecordedAnswer[];
  /** With `grpc`: where it serves gRPC (1.0 and 0.3), and the server streams it wrote there. */
  readonly grpcUrl?: string;
  readonly grpcStreams: RecordedStream[];
  close(): Promise<void>;
}

class CountingExecutor implements AgentExecutor {
  readonly runs = new TaskRuns();
  constructor(private readonly stepMs: number) {}

  execute = async (ctx: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const { taskId, contextId } = ctx;
    const signal = this.runs.start(taskId, contextId);
    try {
      bus.publish(openingTask(ctx));
      bus.publish(statusUpdate(taskId, contextId, TaskState.TASK_STATE_WORKING, 'counting'));
      for (let i = 1; i <= CHUNKS; i++) {
        if (!(await sleep(this.stepMs, signal))) return;
        const chunk = { artifactId: `count-${taskId}`, name: 'count', text: `chunk ${i}`, append: i > 1 };
        bus.publish(artifactUpdate(taskId, contextId, { ...chunk, lastChunk: i === CHUNKS }));
      }
      bus.publish(statusUpdate(taskId, contextId, TaskState.TASK_STATE_COMPLETED, 'counted'));
    } finally {
      this.runs.finish(taskId);
    }
  };

  cancelTask = cancelVia(this.runs, 'canceled');
}

/** Keeps every byte each answer's `write` and `end` were given. */
function recordAnswers(into: RecordedAnswer[]): RequestHandler {
  return (req, res, next) => {
    const chunks: Buffer[] = [];
    // The body as the SDK's own parser read it (listening for 'data' here would race that parser).
    const body = () => JSON.stringify((req as { body?: unknown }).body ?? null);
    into.push({
      method: req.method,
      path: req.originalUrl,
      get body() {
        return body();
      },
      bytes: () => Buffer.concat(chunks),
    });
    const write = res.write.bind(res) as (chunk: unknown, ...rest: unknown[]) => boolean;
    const end = res.end.bind(res) as (...args: unknown[]) => typeof res;
    const keep = (chunk: unknown) => {
      if (typeof chunk === 'string') chunks.push(Buffer.from(chunk));
      else if (chunk instanceof Uint8Array) chunks.push(Buffer.from(chunk));
    };
    res.write = ((chunk: unknown, ...rest: unknown[]) => (keep(chunk), write(chunk, ...rest))) as typeof res.write;
    res.end = ((...args: unknown[]) => (
      typeof args[0] !== 'function' && keep(args[0]),
      end(...args)
    )) as typeof res.end;
    next();
  };
}

export async function startCountingAgent(stepMs: number, opts: { grpc?: boolean } = {}): Promise<CountingAgent> {
  const answers: RecordedAnswer[] = [];
  const grpcStreams: RecordedStream[] = [];
  const executor = new CountingExecutor(stepMs);
  const grpc = opts.grpc ? await startGrpcHost([] as RecordedRequest[], grpcStreams) : undefined;
  const hosted: HostedAgent = await hostAgent({
    card: {
      name: 'counting agent (SDK 1.3.0)',
      description: 'Streams many events per task, for stream resume tests.',
      provider: { organization: 'resume-test', url: 'https://example.invalid' },
      version: '1.0.0',
      capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
      securitySchemes: {},
      securityRequirements: [],
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [
        {
          ...PEER_SKILL,
          tags: [...PEER_SKILL.tags],
          examples: [],
          inputModes: [],
          outputModes: [],
          securityRequirements: [],
        },
      ],
      signatures: [],
    },
    executor,
    compatV03: true,
    middleware: [recordAnswers(answers)],
    onClose: () => executor.runs.abortAll(),
    extraInterfaces: grpc ? [grpc.iface] : [],
  });
  grpc?.serve(hosted.requestHandler, true);
  const close = async () => void (await Promise.all([hosted.close(), grpc?.close()]));
  return { url: hosted.url, answers, grpcUrl: grpc?.url, grpcStreams, close };
}
