/** `npm run demo` through the gateway: a question comes back as a direct message, a diff as a
 * task, and the gateway's record of each call (GET /exchanges on the admin listener) says the same. */
import { describe, expect, it } from 'vitest';
import { startDemoFleet } from '../../src/demo/fleet.js';
import { runDemo } from '../../src/demo/client.js';
import { startTestGateway } from '../support/gateway.js';
import { withDeadline } from '../peers/deadline.js';

describe('npm run demo through the gateway', () => {
  it('prints a direct message for the question and a task for the diff, as the gateway recorded them', async () => {
    const fleet = await startDemoFleet({ basePort: 0, reviewerStepMs: 20 });
    const gateway = await startTestGateway(
      Object.fromEntries(Object.entries(fleet.agents).map(([name, url]) => [name, { url }])),
    );
    try {
      const lines: string[] = [];
      const outcomes = await withDeadline(
        runDemo(gateway.url, (l) => lines.push(l), { url: gateway.adminUrl }),
        15_000,
        'demo',
      );
      expect(outcomes[0]).toMatchObject({ shape: 'message', recorded: { kind: 'message', findings: [] } });
      expect(outcomes[1]).toMatchObject({
        shape: 'task',
        state: 'INPUT_REQUIRED',
        recorded: { kind: 'task', taskId: outcomes[1]!.taskId, state: 'TASK_STATE_INPUT_REQUIRED' },
      });
      expect(outcomes[2]).toMatchObject({
        shape: 'task',
        state: 'COMPLETED',
        recorded: { kind: 'task', taskId: outcomes[1]!.taskId, state: 'TASK_STATE_COMPLETED' },
      });
      expect(lines.filter((l) => l.includes('gateway recorded: kind=message'))).toHaveLength(1);
      expect(lines.filter((l) => l.includes('gateway recorded: kind=task'))).toHaveLength(2);
      // It ends with where to watch it: the console, and the diff's task on a timeline.
      expect(lines).toContain(`console: ${gateway.adminUrl}/console/`);
      expect(lines).toContain(
        `the diff's task on a timeline: ${gateway.adminUrl}/console/tasks/code-reviewer/${outcomes[1]!.taskId}`,
      );
    } finally {
      await gateway.close();
      await fleet.close();
    }
  });
});
