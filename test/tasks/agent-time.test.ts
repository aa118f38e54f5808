/**
 * A state visit starts at the agent's own status.timestamp when it can be believed
 * (src/tasks/agent-time.ts), else when the gateway saw it; both stores apply it through
 * `advanceStory` (the Redis script's copy is compared in test/state/redis-store.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { AGENT_CLOCK_SKEW_MS, parseAgentTimestamp, stateStartedAt } from '../../src/tasks/agent-time.js';
import { advanceStory, newStory } from '../../src/tasks/story.js';
import type { TaskState } from '../../src/a2a/task-state.js';

const S = (state: string) => `TASK_STATE_${state}` as TaskState;
const SKEW = AGENT_CLOCK_SKEW_MS;

describe('parseAgentTimestamp', () => {
  it.each([
    ['2026-01-02T03:04:05Z', Date.UTC(2026, 0, 2, 3, 4, 5)],
    ['2026-01-02T03:04:05.250Z', Date.UTC(2026, 0, 2, 3, 4, 5, 250)],
    ['2026-01-02T04:04:05+01:00', Date.UTC(2026, 0, 2, 3, 4, 5)],
  ])('reads the ISO 8601 date-time %s', (raw, ms) => {
    expect(parseAgentTimestamp(raw)).toBe(ms);
  });

  it.each([
    undefined,
    '',
    'yesterday',
    '2026-01-02',
    '1767322000000',
    'Fri, 02 Jan 2026 03:04:05 GMT',
    '2026-13-45T99:99Z',
  ])('ignores %j', (raw) => {
    expect(parseAgentTimestamp(raw)).toBeUndefined();
  });
});

describe('stateStartedAt', () => {
  const bounds = { observedAt: 100_000, firstSeen: 50_000 };

  it('takes the agent stamp between the first sighting and the observation', () => {
    expect(stateStartedAt(60_000, bounds)).toBe(60_000);
  });

  it('falls back to the observation time without a stamp', () => {
    expect(stateStartedAt(undefined, bounds)).toBe(100_000);
  });

  it('allows the skew on both sides, and no more', () => {
    expect(stateStartedAt(100_000 + SKEW, bounds)).toBe(100_000 + SKEW);
    expect(stateStartedAt(100_001 + SKEW, bounds)).toBe(100_000);
    expect(stateStartedAt(50_000 - SKEW, bounds)).toBe(50_000 - SKEW);
    expect(stateStartedAt(49_999 - SKEW, bounds)).toBe(100_000);
  });

  it('never starts a state before the previous one', () => {
    expect(stateStartedAt(60_000, { ...bounds, previousAt: 70_000 })).toBe(70_000);
  });
});

describe('a story told with the agent stamps', () => {
  it('measures the duration to the agent stamp, and keeps lastSeen at the observation', () => {
    const story = newStory('a', 't', { state: S('WORKING'), at: 1_000, shown: true });
    advanceStory(story, { state: S('WORKING'), at: 1_000, shown: true, agentAt: 990 });
    const events = advanceStory(story, { state: S('COMPLETED'), at: 3_600_000, shown: true, agentAt: 1_500 });
    expect(story.states.map((v) => v.at)).toEqual([990, 1_500]);
    expect(story.durationMs).toBe(510); // from the first state's stamp, 10 ms before the sighting
    expect(story.lastSeen).toBe(3_600_000);
    expect(events.find((e) => e.type === 'settled')).toMatchObject({ durationMs: 510 });
  });

  it('measures an interruption between the agent stamps', () => {
    const story = newStory('a', 't', { at: 1_000, shown: true });
    advanceStory(story, { state: S('INPUT_REQUIRED'), at: 1_000, shown: true, agentAt: 1_000 });
    const events = advanceStory(story, { state: S('WORKING'), at: 90_000, shown: true, agentAt: 4_000 });
    expect(events.find((e) => e.type === 'resumed')).toMatchObject({ ms: 3_000 });
  });

  it('ignores a stamp from the future', () => {
    const story = newStory('a', 't', { at: 1_000, shown: true });
    advanceStory(story, { state: S('COMPLETED'), at: 2_000, shown: true, agentAt: 2_000 + SKEW + 1 });
    expect(story.durationMs).toBe(1_000);
  });
});

describe('a first state stamped before the first sighting', () => {
  it('counts the duration from that stamp, so it covers the interruption', () => {
    const story = newStory('a', 't', { at: 1_000, shown: true });
    advanceStory(story, { state: S('INPUT_REQUIRED'), at: 1_000, shown: true, agentAt: 900 });
    advanceStory(story, { state: S('WORKING'), at: 1_200, shown: true, agentAt: 1_150 });
    advanceStory(story, { state: S('COMPLETED'), at: 1_300, shown: true, agentAt: 1_250 });
    expect(story.interruptedMs[S('INPUT_REQUIRED')]).toBe(250);
    expect(story.durationMs).toBe(350);
  });
});
