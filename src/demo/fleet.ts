// The demo fleet behind the gateway: three @a2a-js/sdk 1.3.0 agents, each with its own
// express app and http server (so the gateway sees three independent upstreams).
import { hostAgent, type HostedAgent } from './host.js';
import { codeReviewer } from './agents/code-reviewer.js';
import { deployer } from './agents/deployer.js';
import { testRunner } from './agents/test-runner.js';
import type { DemoAgent } from './agents/common.js';

export type DemoAgentName = 'code-reviewer' | 'test-runner' | 'deployer';

export interface DemoFleetOptions {
  /** Bind address (default 127.0.0.1). */
  host?: string;
  /** First port (default 9101 → 9101, 9102, 9103); 0 = ephemeral ports. */
  basePort?: number;
  /** Duration of one test-runner session, ms (default 3000). */
  testRunnerMs?: number;
  /** Duration of one deployment, ms (default 75000). */
  deployerMs?: number;
  /** Interval between deployer progress updates, ms (default 5000). */
  deployerProgressMs?: number;
  /** Pause between code-reviewer phases, ms (default 400). */
  reviewerStepMs?: number;
}

export interface DemoFleet {
  /** Base URL of each agent, no trailing slash. */
  agents: Record<DemoAgentName, string>;
  close(): Promise<void>;
}

export async function startDemoFleet(opts: DemoFleetOptions = {}): Promise<DemoFleet> {
  const basePort = opts.basePort ?? 9101;
  const roster: Array<[DemoAgentName, DemoAgent]> = [
    ['code-reviewer', codeReviewer({ stepMs: opts.reviewerStepMs })],
    ['test-runner', testRunner({ durationMs: opts.testRunnerMs })],
    ['deployer', deployer({ durationMs: opts.deployerMs, progressEveryMs: opts.deployerProgressMs })],
  ];
  const started: HostedAgent[] = [];
  const close = async (): Promise<void> => {
    await Promise.all(started.map((a) => a.close()));
  };
  try {
    const agents = {} as Record<DemoAgentName, string>;
    for (const [i, [name, agent]] of roster.entries()) {
      const hosted = await hostAgent({
        host: opts.host,
        port: basePort === 0 ? 0 : basePort + i,
        card: agent.card,
        executor: agent.executor,
        onClose: agent.stop,
      });
      started.push(hosted);
      agents[name] = hosted.url;
    }
    return { agents, close };
  } catch (err) {
    // A port in use must not leave the agents that did start listening.
    await close();
    throw err;
  }
}
