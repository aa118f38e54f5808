/**
 * The unfinished tasks the tracker knows, kept from its events, so a scrape can tell how long the
 * longest-waiting one has sat in its current state ("stuck in WORKING", "input-required backlog").
 * Entries are the tracker's own story objects and leave on settle or eviction, so this holds no
 * more than the bounded task store does.
 */
import { isTerminal, type TaskState } from '../../a2a/task-state.js';
import type { TaskEvent, TaskStory } from '../../tasks/tracker.js';

export class OpenTasks {
  private readonly stories = new Map<string, TaskStory>();

  readonly listener = (event: TaskEvent): void => {
    const key = `${event.story.agent}\u0000${event.story.taskId}`;
    if (event.type === 'state' && !isTerminal(event.to)) this.stories.set(key, event.story);
    else if (event.type === 'settled' || event.type === 'evicted') this.stories.delete(key);
  };

  /** Per agent and current state: seconds since the oldest task entered it. */
  oldest(now: number): Map<string, Map<TaskState, number>> {
    const out = new Map<string, Map<TaskState, number>>();
    for (const story of this.stories.values()) {
      const visit = story.states.at(-1);
      if (!visit || isTerminal(visit.state)) continue;
      let perAgent = out.get(story.agent);
      if (!perAgent) out.set(story.agent, (perAgent = new Map()));
      const age = Math.max(0, now - visit.at) / 1000;
      perAgent.set(visit.state, Math.max(perAgent.get(visit.state) ?? 0, age));
    }
    return out;
  }

  get size(): number {
    return this.stories.size;
  }
}
