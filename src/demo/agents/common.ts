// What every demo agent hands to the fleet, and the cancel behaviour they share.
import type { AgentExecutor, ExecutionEventBus } from '@a2a-js/sdk/server';
import type { CardTemplate } from '../host.js';
import type { TaskRuns } from '../task-runs.js';
import { statusUpdate, TaskState } from '../v1-events.js';

export interface DemoAgent {
  card: CardTemplate;
  executor: AgentExecutor;
  /** Stops every running task (server shutdown). */
  stop(): void;
}

/**
 * AgentExecutor.cancelTask for agents whose loops are tracked in `runs`. The SDK's cancel
 * path waits on the task's bus for a terminal event, so CANCELED is published even when
 * no loop is running (a task parked in INPUT_REQUIRED has a live bus but no loop).
 */
export function cancelVia(runs: TaskRuns, text: string): AgentExecutor['cancelTask'] {
  return async (taskId: string, bus: ExecutionEventBus): Promise<void> => {
    runs.cancel(taskId);
    bus.publish(statusUpdate(taskId, runs.contextOf(taskId), TaskState.TASK_STATE_CANCELED, text));
  };
}

/** Card fields the three demo agents share. */
export function demoCard(fields: Pick<CardTemplate, 'name' | 'description' | 'skills'>): CardTemplate {
  return {
    ...fields,
    provider: { organization: 'a2a-gateway demo fleet', url: 'https://github.com/a2aproject' },
    version: '0.1.0',
    capabilities: { streaming: true, pushNotifications: true, extensions: [], extendedAgentCard: false },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    signatures: [],
  };
}

/** A skill entry with the proto's required-but-empty fields filled. */
export function skill(
  id: string,
  name: string,
  description: string,
  examples: string[],
  inputModes: string[] = ['text/plain'],
): CardTemplate['skills'][number] {
  return {
    id,
    name,
    description,
    tags: ['demo'],
    examples,
    inputModes,
    outputModes: ['text/plain'],
    securityRequirements: [],
  };
}
