/**
 * `agents.{name}.resume` in the config (src/config/resume-schema.ts): safe defaults, refusals
 * named by key; and step 4b's decision (src/resume/decision.ts): which calls are resumes.
 */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { problems } from '../config/problems.js';
import { resumeOf } from '../../src/resume/decision.js';
import { formatEventId, parseEventId } from '../../src/resume/event-id.js';
import type { RequestFacts } from '../../src/a2a/request.js';

const agent = (body: string) => `agents:\n  a:\n    url: http://h:1\n${body}`;

describe('resume config', () => {
  it('is off by default, with bounded windows and a grace read', () => {
    const config = parseConfig(agent(''), 'gw.yaml', {});
    expect(config.agents['a']!.resume).toEqual({
      enabled: false,
      window: { events: 256, bytes: 1024 * 1024, ttl: 600_000 },
      grace: 30_000,
      failClosed: false,
    });
    expect(config.resume.memoryStreams).toBe(1000);
  });

  it('refuses an empty window and unknown keys, naming the key', () => {
    expect(problems(agent('    resume: { enabled: true, window: { events: 0 } }\n'))[0]).toMatch(
      /agents\.a\.resume\.window\.events/,
    );
    expect(problems(agent('    resume: { enable: true }\n'))[0]).toMatch(/agents\.a\.resume/);
  });
});

const facts = (operation: string, taskId?: string) => ({ operation, taskId }) as unknown as RequestFacts;

describe("step 4b's decision", () => {
  const id = formatEventId('task/1 ü', 'AbCdEfGh12', 7);

  it('reads back the task, stream and number of an id it made (any task id)', () => {
    expect(parseEventId(id)).toEqual({ taskId: 'task/1 ü', stream: 'AbCdEfGh12', seq: 7 });
  });

  it('resumes a stream call with Last-Event-ID, and nothing else', () => {
    expect(resumeOf('a', facts('SendStreamingMessage'), id)).toMatchObject({ kind: 'window', after: 7 });
    expect(resumeOf('a', facts('SubscribeToTask', 'task/1 ü'), id)).toMatchObject({ kind: 'window' });
    expect(resumeOf('a', facts('SendMessage'), id)).toBeUndefined();
    expect(resumeOf('a', facts('SendStreamingMessage'), undefined)).toBeUndefined();
  });

  it('answers an id it never gave, or a SubscribeToTask of another task, as beyond the window', () => {
    expect(resumeOf('a', facts('SendStreamingMessage'), 'agent-own-id-42')).toEqual({ kind: 'beyond' });
    expect(resumeOf('a', facts('SubscribeToTask', 'other'), id)).toEqual({ kind: 'beyond' });
  });
});
