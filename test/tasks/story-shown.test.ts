/**
 * The story rule's `shown` (src/tasks/story.ts advanceStory): a state is filled once a reply or
 * event showed it to the client, hollow while only the gateway (the timeout rescue) saw it.
 */
import { describe, expect, it } from 'vitest';
import { advanceStory, newStory } from '../../src/tasks/story.js';
import type { TaskState } from '../../src/a2a/task-state.js';
import { decodeStory } from '../../src/state/redis-replies.js';

const S = (state: string) => `TASK_STATE_${state}` as TaskState;
const story = () => newStory('a', 't', { at: 1_000, shown: true });

describe('advanceStory and shown', () => {
  it('records a new state with the sighting’s shown', () => {
    const s = story();
    advanceStory(s, { state: S('WORKING'), at: 1_000, shown: false });
    advanceStory(s, { state: S('INPUT_REQUIRED'), at: 2_000, shown: true });
    expect(s.states).toEqual([
      { state: S('WORKING'), at: 1_000, shown: false },
      { state: S('INPUT_REQUIRED'), at: 2_000, shown: true },
    ]);
  });

  it('a shown sighting of the current state fills it, with no event; a hidden one never empties it', () => {
    const s = story();
    advanceStory(s, { state: S('WORKING'), at: 1_000, shown: false });
    expect(advanceStory(s, { state: S('WORKING'), at: 1_500, shown: true })).toEqual([]);
    expect(s.states).toEqual([{ state: S('WORKING'), at: 1_000, shown: true }]);
    expect(advanceStory(s, { state: S('WORKING'), at: 1_600, shown: false })).toEqual([]);
    expect(s.states[0]!.shown).toBe(true);
    expect(s.lastSeen).toBe(1_600);
  });

  it('fills the terminal state after settling (the rescue saw it first) and changes nothing else', () => {
    const s = story();
    advanceStory(s, { state: S('WORKING'), at: 1_000, shown: false });
    const settled = advanceStory(s, { state: S('COMPLETED'), at: 3_000, shown: false });
    expect(settled.map((e) => e.type)).toEqual(['state', 'settled']);
    expect(advanceStory(s, { state: S('COMPLETED'), at: 3_100, shown: true })).toEqual([]);
    expect(s.states).toEqual([
      { state: S('WORKING'), at: 1_000, shown: false },
      { state: S('COMPLETED'), at: 3_000, shown: true },
    ]);
    expect(s.durationMs).toBe(2_000);
    // After terminal another state still changes nothing, shown or not.
    expect(advanceStory(s, { state: S('WORKING'), at: 4_000, shown: true })).toEqual([]);
    expect(s.states).toHaveLength(2);
  });

  it('decodes a story stored before `shown` existed as shown', () => {
    const raw = JSON.stringify({
      agent: 'a',
      taskId: 't',
      firstSeen: 1,
      lastSeen: 2,
      states: [{ state: S('COMPLETED'), at: 2 }],
      interruptedMs: {},
      durationMs: 1,
    });
    expect(decodeStory(raw, null).states).toEqual([{ state: S('COMPLETED'), at: 2, shown: true }]);
  });
});
