/**
 * `GET /console/api/tasks/{agent}/{taskId}`: one task's timeline (api-types.ts TaskTimeline).
 * Mounted by the admin app with the other console routes; 503 when the shared task store cannot
 * answer, as the admin app's `/tasks` route does (src/control/admin-app.ts).
 */
import type { Hono } from 'hono';
import { errorAnswer } from '../errors/control-answer.js';
import type { RecentExchanges } from '../inspect/recent.js';
import { StoreUnavailable, type TaskTracker } from '../tasks/tracker.js';
import { taskTimeline } from './timeline.js';

export interface TimelineDeps {
  readonly tracker: TaskTracker;
  readonly recent: RecentExchanges;
}

export function mountTaskTimeline(app: Hono, deps: TimelineDeps): void {
  app.get('/console/api/tasks/:agent/:taskId', async (c) => {
    const agent = c.req.param('agent');
    let story;
    try {
      story = await deps.tracker.store.get(agent, c.req.param('taskId'));
    } catch (err) {
      if (!(err instanceof StoreUnavailable)) throw err;
      return errorAnswer(c, 503, 'STATE_UNAVAILABLE', err.message);
    }
    if (!story) return errorAnswer(c, 404, 'NOT_FOUND', 'this task is not tracked (never seen, or forgotten)');
    const records = deps.recent.find({ agent, limit: deps.recent.capacity });
    return c.json(taskTimeline(story, records));
  });
}
