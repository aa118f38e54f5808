// Reading 1.0 SDK results in tests: SendMessage yields Message | Task (told apart by
// `messageId`, as the SDK itself does) and streams yield { payload: { $case, value } }.
import { TaskState, type Message, type Part, type StreamResponse, type Task } from '@a2a-js/sdk';
import { partText } from '../../src/demo/v1-events.js';

export function isMessage(result: Message | Task): result is Message {
  return 'messageId' in result;
}

export function asTask(result: Message | Task): Task {
  if (isMessage(result)) throw new Error(`expected a task, got message: ${texts(result.parts).join(' ')}`);
  return result;
}

export function asMessage(result: Message | Task): Message {
  if (!isMessage(result)) throw new Error(`expected a message, got task in ${stateName(result.status?.state)}`);
  return result;
}

export function texts(parts: Part[] | undefined): string[] {
  return (parts ?? []).map((p) => partText(p) ?? '');
}

/** "COMPLETED" for TaskState.TASK_STATE_COMPLETED, etc. */
export function stateName(state: TaskState | undefined): string {
  return state === undefined ? 'none' : TaskState[state].replace('TASK_STATE_', '');
}

/** A compact trace of a stream: "task:SUBMITTED", "status:WORKING", "artifact", "artifact+append+last". */
export function trace(events: StreamResponse[]): string[] {
  return events.map((ev) => {
    const p = ev.payload;
    switch (p?.$case) {
      case 'task':
        return `task:${stateName(p.value.status?.state)}`;
      case 'message':
        return 'message';
      case 'statusUpdate':
        return `status:${stateName(p.value.status?.state)}`;
      case 'artifactUpdate':
        return artifactTrace(p.value);
      default:
        return 'empty';
    }
  });
}

/** Task id announced by the first event of a stream. */
export function streamTaskId(events: StreamResponse[]): string {
  const first = events[0]?.payload;
  if (first?.$case === 'task') return first.value.id;
  throw new Error(`stream did not open with a task: ${trace(events).join(', ')}`);
}

/** "artifact" plus "+append" / "+last" for the chunk flags that are set. */
export function artifactTrace(ev: { append?: boolean; lastChunk?: boolean }): string {
  return `artifact${ev.append ? '+append' : ''}${ev.lastChunk ? '+last' : ''}`;
}
