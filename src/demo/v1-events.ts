// Builders for @a2a-js/sdk 1.3.0 objects (agent events, and user messages for the demo client). The SDK's TypeScript types are generated from the
// proto, so every field is required (empty strings, empty arrays, `undefined` metadata);
// these helpers fill the defaults once so agent code reads like the protocol, not like proto.
import { randomUUID } from 'node:crypto';
import {
  Role,
  TaskState,
  type Artifact,
  type Message,
  type Part,
  type SendMessageRequest,
  type Task,
} from '@a2a-js/sdk';
import { AgentEvent, type AgentExecutionEvent, type RequestContext } from '@a2a-js/sdk/server';

export function textPart(text: string, mediaType = 'text/plain'): Part {
  return { content: { $case: 'text', value: text }, mediaType, filename: '', metadata: undefined };
}

/** The text of a part, or undefined for raw/url/data parts. */
export function partText(part: Part): string | undefined {
  return part.content?.$case === 'text' ? part.content.value : undefined;
}

/** All text parts of a message joined with newlines. */
export function messageText(message: Message | undefined): string {
  return (message?.parts ?? [])
    .map(partText)
    .filter((t): t is string => t !== undefined)
    .join('\n');
}

/** A message authored by the agent. `taskId` stays empty for a direct (task-less) reply. */
export function agentMessage(text: string, contextId: string, taskId = ''): Message {
  return {
    messageId: randomUUID(),
    contextId,
    taskId,
    role: Role.ROLE_AGENT,
    parts: [textPart(text)],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** A message authored by the user (client side), e.g. for the demo client. */
export function userMessage(parts: Part[], ids: { taskId?: string; contextId?: string } = {}): Message {
  return {
    messageId: randomUUID(),
    contextId: ids.contextId ?? '',
    taskId: ids.taskId ?? '',
    role: Role.ROLE_USER,
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** A SendMessageRequest; returnImmediately defaults to false (blocking), as in the spec. */
export function sendRequest(
  message: Message,
  config: { returnImmediately?: boolean; historyLength?: number } = {},
): SendMessageRequest {
  return {
    tenant: '',
    message,
    configuration: {
      acceptedOutputModes: ['text/plain'],
      taskPushNotificationConfig: undefined,
      returnImmediately: config.returnImmediately ?? false,
      ...(config.historyLength === undefined ? {} : { historyLength: config.historyLength }),
    },
    metadata: undefined,
  };
}

/** The first event of a new task: SUBMITTED, with the triggering user message as history. */
export function submittedTask(ctx: RequestContext): AgentExecutionEvent {
  const task: Task = {
    id: ctx.taskId,
    contextId: ctx.contextId,
    status: { state: TaskState.TASK_STATE_SUBMITTED, timestamp: new Date().toISOString(), message: undefined },
    artifacts: [],
    history: [ctx.userMessage],
    metadata: {},
  };
  return AgentEvent.task(task);
}

/**
 * The first event of a turn: the existing task on a follow-up (the SDK requires every turn to
 * open with a task or message event), otherwise a fresh SUBMITTED task.
 */
export function openingTask(ctx: RequestContext): AgentExecutionEvent {
  return ctx.task ? AgentEvent.task(ctx.task) : submittedTask(ctx);
}

export function statusUpdate(taskId: string, contextId: string, state: TaskState, text?: string): AgentExecutionEvent {
  return AgentEvent.statusUpdate({
    taskId,
    contextId,
    status: {
      state,
      message: text === undefined ? undefined : agentMessage(text, contextId, taskId),
      timestamp: new Date().toISOString(),
    },
    metadata: undefined,
  });
}

export interface ArtifactChunk {
  artifactId: string;
  name: string;
  description?: string;
  text: string;
  mediaType?: string;
  /** Adds the parts to the artifact sent earlier with the same id. */
  append?: boolean;
  /** Marks the final chunk of the artifact. */
  lastChunk?: boolean;
}

export function artifactUpdate(taskId: string, contextId: string, chunk: ArtifactChunk): AgentExecutionEvent {
  const artifact: Artifact = {
    artifactId: chunk.artifactId,
    name: chunk.name,
    description: chunk.description ?? '',
    parts: [textPart(chunk.text, chunk.mediaType)],
    metadata: undefined,
    extensions: [],
  };
  return AgentEvent.artifactUpdate({
    taskId,
    contextId,
    artifact,
    append: chunk.append ?? false,
    lastChunk: chunk.lastChunk ?? false,
    metadata: undefined,
  });
}

export { TaskState };
